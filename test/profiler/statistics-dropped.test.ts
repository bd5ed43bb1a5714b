// run-suite: shares a process

// Requests not kept as profiles still feed the statistics; when their queue is full (the store held
// by another connection meanwhile) the ones dropped are counted and shown: in the store's health on
// the listing (JSON and page) and on the statistics page (JSON and page). On both engines, for real:
// a small bound and a locked store.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { listProfiles, profilerPage, statsJson } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'
import { storeCaughtUp, storeFailing } from '../helpers/store-health.js'
import { storeLock } from '../helpers/store-lock.js'
import { waitFor } from '../helpers/wait-for.js'

const engines = storeEngines(t)
const BOUND = 20
const SENT = 50

/** The cheap status poll: a business request with no test route to add. */
async function poll (app: FastifyInstance) {
  return await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{}' })
}

async function htmlPage (app: FastifyInstance, path: string): Promise<string> {
  const res = await app.inject({ url: `/_profiler${path}`, headers: { accept: 'text/html' } })
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${res.body.slice(0, 500)}`)
  return res.body
}

for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip }, async t => {
    t.test(`${SENT} requests not kept while the store is locked, at a bound of ${BOUND}: ${SENT - BOUND} not counted, and shown`, async t => {
      // No draw keeps a request (PROFILER_SAMPLE=0): every one is for the statistics only. A locked
      // write fails after 200 ms (SQLite) or 500 ms (PostgreSQL) and is retried every 100 ms.
      const { app, logLines } = await buildLoggedApp(t, { ...await engine.fresh(t), PROFILER_SAMPLE: '0' },
        { profiler: { store: { maxStatistics: BOUND, retryDelayMs: 100 }, busyTimeoutMs: 200, statementTimeoutMs: 500 } })
      const lock = await storeLock(t, app)
      await lock.hold()
      // The first request's record is seen failing to be written; the others arrive during the fault.
      const answers = [await poll(app)]
      await waitFor(async () => await storeFailing(app), { timeoutMs: 30_000, intervalMs: 100, what: 'the store is seen failing' })
      for (let i = 1; i < SENT; i++) answers.push(await poll(app))
      t.ok(answers.every(res => res.statusCode === 200), 'every request answered')
      t.ok(answers.every(res => ['x-debug-token', 'x-debug-token-link', 'server-timing'].every(name => res.headers[name] === undefined)), 'none kept as a profile: no token, no link, no Server-Timing')
      t.equal(app.profileStore.statisticsDropped, SENT - BOUND, 'the requests past the bound are dropped and counted')

      const held = JSON.parse((await profilerPage(app, '/empty/search/results')).body)
      t.match(held.store, { state: 'failing', statisticsDropped: SENT - BOUND }, 'the listing\'s JSON says it while the store is locked')
      await lock.release()
      await waitFor(async () => await storeCaughtUp(app), { timeoutMs: 30_000, intervalMs: 100, what: 'the store has caught up' })
      await app.profileStore.flush()

      t.same(await listProfiles(app), [], 'no profile kept')
      const stats = await statsJson(app)
      t.match(stats.routes.find(line => line.route === '/monitor/MonitorPooling'), { count: BOUND, kept: 0 }, 'the requests within the bound are counted once the lock is gone')
      const recovered = logLines(/profile store is writable again/)
      t.equal(recovered.length, 1, 'the recovery is logged once')
      t.match(recovered[0], `0 profile(s) could not be stored meanwhile, and ${SENT - BOUND} request(s) not kept as profiles could not be counted in the statistics`, 'with the requests not counted')
      t.equal(stats.statisticsDropped, SENT - BOUND, 'the statistics\' JSON says how many are missing')
      t.match(await htmlPage(app, '/stats'), `id="statistics-dropped"><strong>${SENT - BOUND} requests not counted</strong>`, 'the statistics page says it')
      t.match(JSON.parse((await profilerPage(app, '/empty/search/results')).body).store, { state: 'ok', dropped: 0, statisticsDropped: SENT - BOUND }, 'the listing\'s JSON')
      t.match(await htmlPage(app, '/empty/search/results'), `id="statistics-dropped">${SENT - BOUND} request(s) not kept as profiles could not be counted`, 'the listing warns')
    })

    t.test('nothing dropped: no warning on either page', async t => {
      const app = await buildTestApp(t, { ...await engine.fresh(t), PROFILER_SAMPLE: '0' })
      await poll(app)
      await app.profileStore.flush()
      t.equal((await statsJson(app)).statisticsDropped, 0)
      t.notMatch(await htmlPage(app, '/stats'), 'statistics-dropped')
      t.notMatch(await htmlPage(app, '/empty/search/results'), 'statistics-dropped')
    })
  })
}
