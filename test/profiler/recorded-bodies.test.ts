// run-suite: shares a process
// What the profiler records of a request body, on both store engines, seen through the detail page,
// "Copy as cURL" and the HAR: no body is recorded as no body (the handler still sees `{}`), and a
// body over 64 KiB keeps the size the client sent, whatever the redaction scan left of it.
import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profileJson, profilerPage } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'

const POLL = '/monitor/MonitorPooling'

/** The request as the three exports give it: the stored body, the curl command, the HAR request. */
async function exported (app: FastifyInstance, token: string) {
  const detail = await profileJson(app, token)
  const curl = (await profilerPage(app, `/${token}/curl`)).body
  const har = JSON.parse((await profilerPage(app, `/${token}/har`)).body).log.entries[0].request
  const page = (await app.inject({ url: `/_profiler/${token}?panel=request` })).body
  return { body: detail.panels.request.body, curl, har, page }
}

const engines = storeEngines(t)
t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    t.test('a POST without a body is recorded without one: cURL sends no data, the HAR has no postData', async t => {
      const app = await buildTestApp(t, await engine.fresh(t))
      const bodyless = [
        { name: 'no Content-Length', headers: {} },
        { name: 'Content-Length: 0', headers: { 'content-length': '0' } },
        { name: 'an empty chunked body', headers: { 'transfer-encoding': 'chunked' } },
        { name: 'an empty chunked JSON body', headers: { 'transfer-encoding': 'chunked', 'content-type': 'application/json' } }
      ]
      for (const { name, headers } of bodyless) {
        const res = await app.inject({ method: 'POST', url: POLL, headers, payload: '' })
        t.equal(res.statusCode, 200, `${name}: the handler took it as {}`)
        const { body, curl, har, page } = await exported(app, String(res.headers['x-debug-token']))
        t.equal(body, null, `${name}: no body stored`)
        t.notMatch(curl, '--data', `${name}: curl sends no data`)
        t.match(curl, '-X POST', 'the method is said, as curl would send GET')
        t.notOk('postData' in har, `${name}: no postData in the HAR`)
        t.equal(har.bodySize, 0)
        t.match(page, '<p class="empty">No body.</p>', 'the panel says there was none')
      }
      // A body of two bytes is one.
      const sent = await app.inject({ method: 'POST', url: POLL, headers: { 'content-type': 'application/json' }, payload: '{}' })
      const { body, curl, har } = await exported(app, String(sent.headers['x-debug-token']))
      t.same(body, {})
      t.match(curl, "--data-raw '{}'")
      t.same(har.postData, { mimeType: 'application/json', text: '{}' })
    })

    t.test('a truncated body keeps the size the client sent, not the size of what the scan left', async t => {
      const app = await buildTestApp(t, await engine.fresh(t))
      // One string past the 64 KiB scan limit: the redacted copy is cut to ~64 KiB.
      const payload = JSON.stringify({ code: 'ADV1001', note: 'é'.repeat(300_000) })
      const bytes = Buffer.byteLength(payload)
      const sent = {
        'with a Content-Length': await app.inject({ method: 'POST', url: POLL, headers: { 'content-type': 'application/json' }, payload }),
        // No Content-Length tells the size: it is counted as it arrives.
        chunked: await app.inject({ method: 'POST', url: POLL, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, payload: Readable.from([Buffer.from(payload)]) })
      }
      for (const [name, res] of Object.entries(sent)) {
        t.equal(res.statusCode, 200, name)
        const { body, har } = await exported(app, String(res.headers['x-debug-token']))
        t.match(body, { truncated: true, bytes, preview: String }, `${name}: the bytes sent`)
        t.equal(har.bodySize, bytes, `${name}: the HAR gives the same size`)
      }
    })
  })
}
