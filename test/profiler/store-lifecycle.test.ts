// run-suite: shares a process
// The store's lifecycle edges: closing a writer that has ended, a read connection that fails
// while writes succeed, and profiles the recorder could not build.
import { join } from 'node:path'
import t from 'tap'
import { buildApp } from '../../app.js'
import { DEFAULT_STORE_OPTIONS, ProfileStore } from '../../plugins/profiler/runtime/profile-store.js'
import { InlineWriter } from '../../plugins/profiler/writer/inline-writer.js'
import { WriterThread } from '../../plugins/profiler/runtime/writer-thread.js'
import type { ProfileRecord } from '../../plugins/profiler/profile.js'
import { freePort } from '../helpers/throwaway-cluster.js'
import { testConfig } from '../helpers/app.js'
import { blockedDir } from '../helpers/blocked.js'

const retention = { maxProfiles: 1000, maxAgeMs: 86_400_000, maxBytes: 64 * 1024 * 1024, statsMaxAgeMs: 30 * 86_400_000 }
/** Both ways of running the writer, each with the name its messages use. */
const WRITERS = [[WriterThread, 'writer thread'], [InlineWriter, 'inline writer']] as const

function withinSeconds<T> (seconds: number, promise: Promise<T>): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timed out'>(resolve => { timer = setTimeout(() => resolve('timed out'), seconds * 1000) })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

t.test('closing a writer that has ended resolves at once (it waited for an exit that had fired)', async t => {
  const dir = t.testdir()
  for (const [Writer, name] of WRITERS) {
    const writer = new Writer({ target: { engine: 'sqlite', path: join(dir, `${name}.sqlite`) }, deployment: 'test', retention, retentionIntervalMs: 1000 }, () => {})
    t.equal(await withinSeconds(10, writer.close()), undefined, `${name}: the first close ends it`)
    t.equal(await withinSeconds(5, writer.close()), undefined, `${name}: a second close resolves instead of hanging`)
    t.match(await writer.request({ type: 'prune', now: Date.now() }), { error: `the ${name} has ended` }, `${name}: later requests are answered`)
  }
})

t.test('a store that cannot be opened yet answers each request as a fault (kept and retried), on either engine and writer', async t => {
  const targets = [
    { engine: 'sqlite' as const, path: join(blockedDir(t), 'blocked', 'profiler.sqlite') },
    { engine: 'postgres' as const, url: `postgres://nobody@127.0.0.1:${await freePort()}/none`, partitionMs: 3_600_000 }
  ]
  for (const target of targets) {
    for (const [Writer, name] of WRITERS) {
      const events: string[] = []
      const writer = new Writer({ target, deployment: 'test', retention, retentionIntervalMs: 1000 }, message => { if (message.type === 'error') events.push(message.message) })
      const answer = await withinSeconds(10, writer.request({ type: 'prune', now: Date.now() }))
      t.match(answer, { error: /\w/, fault: true }, `${target.engine}, ${name}: a fault, with its reason`)
      t.ok(events.length >= 1, `${target.engine}, ${name}: the failed opening is reported`)
      await writer.close()
    }
  }
})

t.test('a read connection that fails while writes succeed: reported once as unreadable, never as unwritable, no flapping', async t => {
  const path = join(t.testdir(), 'profiler.sqlite')
  const errors: string[] = []
  const infos: string[] = []
  const writer = new WriterThread({ target: { engine: 'sqlite', path }, deployment: 'test', retention, retentionIntervalMs: 1000 }, () => {})
  const store = new ProfileStore(() => { throw new Error('the read connection is refused') }, writer, { ...DEFAULT_STORE_OPTIONS, retryDelayMs: 10 }, {
    onDrop: () => {},
    error: message => { errors.push(message) },
    info: message => { infos.push(message) }
  })
  t.teardown(() => store.close())
  const profile = (i: number): ProfileRecord => ({
    id: store.nextId(Date.now()),
    token: `00000${i}`,
    parentToken: null,
    type: 'request',
    ip: '127.0.0.1',
    method: 'GET',
    url: 'http://localhost/',
    statusCode: 200,
    durationMs: 1,
    route: null,
    panels: '{}'
  })
  for (let i = 0; i < 4; i++) {
    store.enqueue(profile(i))
    await store.flush()
    await new Promise(resolve => setTimeout(resolve, 15))
  }
  t.equal(store.count, 4, 'every batch was written')
  t.same(errors, ['profiler: the profile store cannot be read (the read connection is refused); its pages answer 503 until it can'])
  t.same(infos.filter(line => /writable again|read again/.test(line)), [], 'no recovery line: it never recovered')
  t.equal(store.healthSnapshot().state, 'ok', 'writes are healthy')
  await t.rejects(store.search({ type: 'request', limit: 10 }), { statusCode: 503, message: /the read connection is refused/ })
})

t.test('a request the recorder cannot profile is counted and logged through the store', async t => {
  const lines: string[] = []
  const app = await buildApp(testConfig(t, { LOG_LEVEL: 'warn' }), {
    logStream: { write: line => { lines.push(line) } },
    profiler: { tokenSource: () => { throw new Error('no token today') } }
  })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  t.equal(res.statusCode, 200, 'the request is answered')
  t.equal(res.headers['x-debug-token'], undefined, 'not profiled')
  t.equal(app.profileStore.dropped, 1)
  t.ok(lines.some(line => line.includes('profiler: 1 profile(s) and 0 request(s) of the statistics dropped so far; latest: a request could not be profiled: no token today')), 'the store logs the drop')
})
