// run-suite: shares a process
// The profiler's threads run under a heap limit (plugins/profiler/thread-heap.ts). The largest thing
// either builds must fit it with room to spare: 100 profiles whose kept 64 KiB bodies are all control
// characters (six bytes each once escaped in JSON), written by the writer thread and exported as one
// HAR by the reader thread. A limit too small for it would end the thread: the batch retried for
// ever, or every HAR answered 503.
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { listProfiles, profilerPage } from '../helpers/profiler.js'

const LOOKUP = '/ccenter/getConseillerByCode'
const PROFILES = 100
const KEPT_BYTES = 64 * 1024

t.test('100 profiles of escaped 64 KiB bodies: written by the writer thread and exported as one HAR by the reader thread', async t => {
  const app = await buildTestApp(t, { PROFILER_WRITER: 'thread' })
  // Only the first 64 KiB are kept (and read, before the 415): a little more makes it a cut body.
  const body = Buffer.alloc(KEPT_BYTES + 1024, 1)
  for (let i = 0; i < PROFILES; i++) {
    const answer = await app.inject({ method: 'POST', url: LOOKUP, headers: { 'content-type': 'text/plain' }, payload: body })
    t.equal(answer.statusCode, 415, 'refused for its type')
  }
  const listed = await listProfiles(app, `limit=${PROFILES}`)
  t.equal(listed.length, PROFILES, 'the writer thread stored every profile')

  const har = await profilerPage(app, `/empty/search/har?limit=${PROFILES}`)
  t.equal(har.statusCode, 200, 'the reader thread built the HAR')
  t.ok(har.body.length > PROFILES * KEPT_BYTES * 6, `the HAR holds every body escaped (${(har.body.length / 2 ** 20).toFixed(1)} MiB)`)
  const entries = JSON.parse(har.body).log.entries as Array<{ request: { postData: { text: string } } }>
  t.equal(entries.length, PROFILES)
  t.ok(entries.every(entry => entry.request.postData.text === '\u0001'.repeat(KEPT_BYTES)), 'each body as kept')

  const again = await profilerPage(app, '/empty/search/results?limit=1')
  t.equal(again.statusCode, 200, 'the reader thread still answers')
})
