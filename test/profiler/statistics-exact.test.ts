// run-suite: shares a process

// Issue 37, item 2: a request is counted once in the route statistics whatever happens to its
// profile (dropped at either queue bound, set aside, lost to a store fault); one that cannot be
// counted either is counted in statisticsDropped, and the statistics (page and JSON, of any
// instance of the store) say how many requests each window lacks. On both engines, for real: the
// store locked by another connection (store-lock.ts), small bounds through the store's test hooks.
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { listProfiles, profilerHtml, statsJson } from '../helpers/profiler.js'
import { missingInStore, storeEngines } from '../helpers/store-engines.js'
import { storeCaughtUp, storeFailing } from '../helpers/store-health.js'
import { storeLock } from '../helpers/store-lock.js'
import { waitFor } from '../helpers/wait-for.js'

const engines = storeEngines(t)
const ROUTE = '/monitor/MonitorPooling'

async function poll (app: FastifyInstance) {
  return await app.inject({ method: 'POST', url: ROUTE, headers: { 'content-type': 'application/json' }, payload: '{}' })
}

/** The statistics' JSON with its missing requests (stats-routes.ts). */
async function statsWithMissing (app: FastifyInstance) {
  return await statsJson(app) as Awaited<ReturnType<typeof statsJson>> & { missing: { total: number, windows: Array<{ from: string, to: string, count: number }> } }
}

/**
 * `sent` requests while the store is locked: the first one's write is seen failing, the others come
 * during the fault. Then the lock is released and everything queued is written.
 */
async function sendWhileLocked (t: Test, app: FastifyInstance, sent: number): Promise<number> {
  const lock = await storeLock(t, app)
  await lock.hold()
  const answers = [await poll(app)]
  await waitFor(async () => await storeFailing(app), { timeoutMs: 30_000, intervalMs: 100, what: 'the store is seen failing' })
  for (let i = 1; i < sent; i++) answers.push(await poll(app))
  await lock.release()
  await waitFor(async () => await storeCaughtUp(app), { timeoutMs: 30_000, intervalMs: 100, what: 'the store has caught up' })
  await app.profileStore.flush()
  return answers.filter(res => res.statusCode === 200).length
}

for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip }, async t => {
    t.test('the store locked at PROFILER_SAMPLE=1, more requests than the queue holds: every answer is counted once', async t => {
      // The run (15,001 answers, 10,000 counted) at a queue of 20 instead of 10,000. A
      // locked write fails after 200 ms (SQLite) or 500 ms (PostgreSQL), retried every 100 ms.
      const QUEUE = 20
      const SENT = 60
      const app = await buildTestApp(t, await engine.fresh(t), undefined,
        { profiler: { store: { maxQueue: QUEUE, retryDelayMs: 100 }, busyTimeoutMs: 200, statementTimeoutMs: 500 } })
      const answered = await sendWhileLocked(t, app, SENT)
      t.equal(answered, SENT, 'every request answered 200')
      const kept = (await listProfiles(app)).filter(profile => profile.url.endsWith(ROUTE)).length
      t.equal(kept, QUEUE, 'the queue\'s bound held: the others\' profiles were dropped')
      t.equal(app.profileStore.dropped, SENT - QUEUE, 'and counted as dropped profiles')
      const stats = await statsWithMissing(app)
      t.match(stats.routes.find(line => line.route === ROUTE), { count: SENT, kept: QUEUE }, 'the statistics count every answer once, the dropped ones as not kept')
      t.equal(stats.statisticsDropped, 0, 'none left uncounted')
      t.same(stats.missing, { total: 0, windows: [] }, 'nothing missing')
      t.notMatch(await profilerHtml(app, '/stats'), 'statistics-missing', 'no warning on the page')
    })

    t.test('profiles dropped at PROFILER_MAX_QUEUE_BYTES are counted in the statistics', async t => {
      // A bound of one byte: every profile's estimate alone is past it, whatever the writer does.
      const SENT = 25
      const { app, logLines } = await buildLoggedApp(t, { ...await engine.fresh(t), PROFILER_MAX_QUEUE_BYTES: '1' })
      const answers = []
      for (let i = 0; i < SENT; i++) answers.push(await poll(app))
      t.ok(answers.every(res => res.statusCode === 200), 'every request answered 200')
      await app.profileStore.flush()
      t.equal(app.profileStore.dropped, SENT, 'every profile dropped')
      t.match(logLines(/dropped so far/)[0], /the queue is full \(0\.0 MiB with this one's \d+\.\d MiB\)/, 'at the byte bound')
      t.same(await listProfiles(app), [], 'none stored')
      const stats = await statsWithMissing(app)
      t.match(stats.routes.find(line => line.route === ROUTE), { count: SENT, kept: 0 }, 'each request counted once, none kept')
      t.equal(stats.statisticsDropped, 0)
      t.equal(stats.missing.total, 0)
    })

    t.test('counts that cannot be kept either: statisticsDropped, and the requests missing per minute on the page and its JSON, of every instance', async t => {
      // 5 profiles, 10 statistics-only requests at most while the store is locked: of 40 requests,
      // 5 kept, 10 counted for the statistics only, 25 not counted.
      const env = await engine.fresh(t)
      const app = await buildTestApp(t, env, undefined,
        { profiler: { store: { maxQueue: 5, maxStatistics: 10, retryDelayMs: 100 }, busyTimeoutMs: 200, statementTimeoutMs: 500 } })
      const startedMs = Math.floor(Date.now() / 60_000) * 60_000
      t.equal(await sendWhileLocked(t, app, 40), 40, 'every request answered 200')
      const endedMs = Date.now()
      t.equal(app.profileStore.statisticsDropped, 25, 'the requests past both bounds are counted as not counted')

      const stats = await statsWithMissing(app)
      t.match(stats.routes.find(line => line.route === ROUTE), { count: 15, kept: 5 }, 'the figures hold those that could be kept')
      t.equal(stats.statisticsDropped, 25)
      t.equal(stats.missing.total, 25, 'the JSON says how many requests the window lacks')
      t.equal(stats.missing.windows.reduce((sum, window) => sum + window.count, 0), 25, 'per window')
      for (const window of stats.missing.windows) {
        t.equal(Date.parse(window.to) - Date.parse(window.from), 60_000, 'a minute each (the 1h window)')
        t.ok(Date.parse(window.from) >= startedMs && Date.parse(window.from) <= endedMs, `the minutes of the run (${window.from})`)
      }
      const page = await profilerHtml(app, '/stats')
      t.match(page, 'id="statistics-missing"><p><strong>25 requests missing</strong> from this window\'s figures', 'the page says it')
      const first = stats.missing.windows[0]
      t.match(page, `<time datetime="${first?.from}">${first?.from}</time> to <time datetime="${first?.to}">${first?.to}</time>: ${first?.count}</li>`, 'with the minute')

      // Another instance of the same store reads them from the store (written once it took writes again).
      const other = await buildTestApp(t, env)
      const seen = await statsWithMissing(other)
      t.equal(seen.statisticsDropped, 0, 'the other instance dropped nothing itself')
      t.same(seen.missing, stats.missing, 'and shows the same missing requests')
      t.match(await profilerHtml(other, '/stats'), '<strong>25 requests missing</strong>')
      t.match(await profilerHtml(other, '/stats?window=24h'), '<strong>25 requests missing</strong>', 'in the longer windows too (per hour)')
      t.equal((await statsWithMissing(app)).missing.total, 25, 'written once: the first instance shows them once')

      // Kept as long as the rollups (PROFILER_STATS_MAX_AGE, 30 days), deleted with them.
      t.equal(await missingInStore(env), 25, 'in the store')
      await other.profileStore.prune(Date.now() + 29 * 86_400_000)
      t.equal(await missingInStore(env), 25, 'kept within the statistics\' bound')
      await other.profileStore.prune(Date.now() + 30 * 86_400_000 + 2 * 3_600_000)
      t.equal(await missingInStore(env), 0, 'deleted past it, by retention')
    })

    t.test('closing while the store is locked: every request not counted is in statisticsDropped, and logged', async t => {
      const { app, logLines } = await buildLoggedApp(t, await engine.fresh(t),
        { profiler: { store: { maxQueue: 5, maxStatistics: 10, retryDelayMs: 100 }, busyTimeoutMs: 200, statementTimeoutMs: 500 } })
      const lock = await storeLock(t, app)
      await lock.hold()
      const answers = [await poll(app)]
      await waitFor(async () => await storeFailing(app), { timeoutMs: 30_000, intervalMs: 100, what: 'the store is seen failing' })
      for (let i = 1; i < 20; i++) answers.push(await poll(app))
      t.ok(answers.every(res => res.statusCode === 200), 'every request answered 200')
      t.equal(app.profileStore.statisticsDropped, 5, 'past both bounds: 5 not counted while it runs')
      await app.close()
      t.equal(app.profileStore.statisticsDropped, 20, 'at the end none of the 20 could be counted: 5 profiles, 10 statistics-only requests and the 5 tallied')
      t.match(logLines(/could not be counted in the statistics before shutdown/)[0], '15 request(s) could not be counted in the statistics before shutdown')
      t.match(logLines(/the store could not be told before shutdown/)[0], 'the statistics lack 5 request(s) that could not be counted, and the store could not be told before shutdown')
    })
  })
}
