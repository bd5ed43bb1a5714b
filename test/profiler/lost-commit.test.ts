// run-suite: shares a process
// A batch whose COMMIT reached PostgreSQL, which committed it, but whose answer never reached the
// writer: the connection is cut in between by a real proxy (what a network or server failure at
// that moment does). The writer sees a fault and retries the batch; its requests must still be
// counted exactly once in the route statistics, kept as profiles or not, and stored once.
import t from 'tap'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { needsPostgres, startPostgres, type PostgresCluster } from '../helpers/postgres.js'
import { startPostgresProxy } from '../helpers/postgres-proxy.js'
import { listProfiles, statsJson } from '../helpers/profiler.js'
import { storeCaughtUp } from '../helpers/store-health.js'
import { waitFor } from '../helpers/wait-for.js'

const REQUESTS = 20
/** Requests that arrive while the batch waits to be retried: they must not ride with its stamp. */
const DURING = 10
/** The retry comes this long after the fault: long enough for the requests sent meanwhile to be queued first. */
const RETRY_DELAY_MS = 1000
/** How long the fault and the recovery may take to be seen, polled gently (each check may query PostgreSQL). */
const RECOVERY = { timeoutMs: 30_000, intervalMs: 100 }

if (needsPostgres(t)) {
  let cluster: PostgresCluster
  let databases = 0
  t.before(async () => { cluster = await startPostgres(t) })

  const sent = REQUESTS + DURING
  for (const { sample, kept } of [{ sample: '0', kept: 0 }, { sample: '1', kept: sent }]) {
    t.test(`PROFILER_SAMPLE=${sample}: the answer to a committed batch lost, the batch retried, every request counted once`, async t => {
      const proxy = await startPostgresProxy(t, cluster.port)
      const url = proxy.via(await cluster.createDatabase(`store_${++databases}`))
      const { app, logLines } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_SAMPLE: sample }, { profiler: { store: { retryDelayMs: RETRY_DELAY_MS } } })
      // The first transaction that adds to the route statistics: a batch's.
      const lost = proxy.loseNextCommitAnswer(/INSERT INTO profile_route_stats/)
      const send = async (count: number): Promise<void> => {
        for (let i = 0; i < count; i++) t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200)
      }
      await send(REQUESTS)
      await lost
      await send(DURING)
      await waitFor(async () => await storeCaughtUp(app), { ...RECOVERY, what: 'the store has caught up' })
      t.equal(logLines(/profile store cannot be written/).length, 1, 'the lost answer was a fault')
      t.equal(logLines(/profile store is writable again/).length, 1, 'and the batch was written again')
      const line = (await statsJson(app, '?window=1h')).routes.find(r => r.route === '/monitor/MonitorPooling' && r.method === 'POST')
      t.match(line, { count: sent, kept, statusClasses: { '2xx': sent } }, `${sent} requests counted, ${kept} of them kept`)
      const stored = (await listProfiles(app)).filter(profile => profile.url === 'http://localhost/monitor/MonitorPooling')
      t.equal(stored.length, kept, 'each kept profile stored once')
      t.equal(app.profileStore.dropped, 0, 'none counted as dropped')
      t.equal(app.profileStore.statisticsDropped, 0, 'no request left out of the statistics')
      await app.profileStore.prune()
      t.equal(app.profileStore.count, kept, 'the store counts each kept profile once (migration 013): the retried batch added nothing')
    })
  }
}
