// run-suite: shares a process

// The statistics say how many requests each window lacks (issue 37) from what the store holds and
// the tallies this instance has not written yet. A tally the store holds already must not be added
// again: the hand-over that carried it committed, its answer on its way (held back by a real proxy)
// or lost (the proxy cuts the connection) and the hand-over waiting to be retried. And the window's rows are read in the
// snapshot of the value that says which of them to read (how far minute rows were given up): a
// coarsening committed between the two made the window's first minutes read rows that were gone.
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import t, { type Test } from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { needsPostgres, startPostgres, type PostgresCluster } from '../helpers/postgres.js'
import { startPostgresProxy } from '../helpers/postgres-proxy.js'
import { statsJson } from '../helpers/profiler.js'
import { missingInStore } from '../helpers/store-engines.js'
import { storeCaughtUp } from '../helpers/store-health.js'
import { waitFor } from '../helpers/wait-for.js'

const SENT = 5
const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
const RECOVERY = { timeoutMs: 30_000, intervalMs: 100 }

/** The requests the statistics' JSON says are missing, read as it is now (statsJson would flush what is queued first: the retry). */
async function missingTotal (app: FastifyInstance): Promise<number> {
  const res = await app.inject({ url: '/_profiler/stats', headers: { accept: 'application/json' } })
  return (res.json() as { missing: { total: number } }).missing.total
}

/** SENT requests none of which the statistics can count (no room for statistics-only requests): each is tallied as missing. */
async function sendUncounted (t: Test, app: FastifyInstance): Promise<void> {
  for (let i = 0; i < SENT; i++) t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200)
  t.equal(app.profileStore.statisticsDropped, SENT, `${SENT} requests not counted`)
}

if (needsPostgres(t)) {
  let cluster: PostgresCluster
  let databases = 0
  t.before(async () => { cluster = await startPostgres(t) })
  const store = async (t: Test) => {
    const proxy = await startPostgresProxy(t, cluster.port)
    const direct = await cluster.createDatabase(`store_${++databases}`)
    return { proxy, direct, url: proxy.via(direct) }
  }
  const overrides = (retryDelayMs: number) => ({ profiler: { store: { maxStatistics: 0, retryDelayMs } } })

  t.test('the tallies written, the answer on its way: shown once', async t => {
    const { proxy, direct, url } = await store(t)
    const { app } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_SAMPLE: '0' }, overrides(100))
    const held = proxy.holdNextCommitAnswer(/INSERT INTO profile_statistics_missing/)
    await sendUncounted(t, app)
    const answer = await held
    t.equal(await missingInStore({ PROFILER_DATABASE_URL: direct }), SENT, 'the store holds the tallies')
    t.equal(await missingTotal(app), SENT, `the statistics say ${SENT} requests are missing, not twice as many`)
    answer.release()
    await waitFor(async () => await storeCaughtUp(app), { ...RECOVERY, what: 'the store has caught up' })
    t.equal(await missingTotal(app), SENT, 'and once the answer came')
  })

  t.test('the tallies written, the answer lost, the hand-over waiting to be retried: shown once, stored once', async t => {
    const { proxy, direct, url } = await store(t)
    const { app } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_SAMPLE: '0' }, overrides(5_000))
    const lost = proxy.loseNextCommitAnswer(/INSERT INTO profile_statistics_missing/)
    await sendUncounted(t, app)
    await lost
    // (Not storeFailing: its flush would hand the retry over at once.)
    await waitFor(() => app.profileStore.healthSnapshot().state === 'failing', { ...RECOVERY, what: 'the store is seen failing' })
    t.equal(await missingTotal(app), SENT, `while the retry waits, ${SENT} requests missing, not twice as many`)
    await waitFor(async () => await storeCaughtUp(app), { ...RECOVERY, what: 'the store has caught up' })
    t.equal(await missingTotal(app), SENT, 'after the retry')
    t.equal(await missingInStore({ PROFILER_DATABASE_URL: direct }), SENT, 'the retry added nothing to the store')
  })

  t.test('a hand-over the store refuses as content: its tallies of missing requests are still written', async t => {
    const url = await cluster.createDatabase(`store_${++databases}`)
    // A route the statistics cannot store: its key is over PostgreSQL's b-tree row limit (2,704 bytes; random text, not compressible).
    let seed = 7
    const route = `/long/${Array.from({ length: 4000 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[(seed = (seed * 48271) % 2147483647) % 36]).join('')}`
    const app = await buildTestApp(t, { PROFILER_DATABASE_URL: url, PROFILER_SAMPLE: '0' }, app => { app.get(route, async () => ({ ok: true })) },
      { profiler: { store: { maxStatistics: 1, retryDelayMs: 100 } } })
    // One statistics-only record (the long route), one request past the bound (tallied missing): one hand-over carries both.
    t.equal((await app.inject({ url: route })).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200)
    await app.profileStore.flush()
    await app.profileStore.flush()
    t.equal(app.profileStore.statisticsDropped, 2, 'both requests are missing from the statistics')
    t.equal(await missingInStore({ PROFILER_DATABASE_URL: url }), 2, 'and the store says so for both: the tally that rode with the refused records too')
    t.equal(await missingTotal(app), 2, 'as does the statistics\' JSON')
  })

  t.test('minute rows given up while the window is read: its rows and how far minutes go come from one snapshot', async t => {
    const url = await cluster.createDatabase(`store_${++databases}`)
    const app = await buildTestApp(t, { PROFILER_DATABASE_URL: url })
    // A minute of the window's first, partial hour, a few minutes clear of its edges (the clock
    // moves): an hour's window when it starts over 5 minutes before a whole hour, else 70 minutes.
    const hourFrom = Math.floor((Date.now() - HOUR_MS) / MINUTE_MS) * MINUTE_MS
    const windowMs = Math.ceil(hourFrom / HOUR_MS) * HOUR_MS - hourFrom > 5 * MINUTE_MS ? HOUR_MS : HOUR_MS + 10 * MINUTE_MS
    const minute = Math.floor((Date.now() - windowMs) / MINUTE_MS) * MINUTE_MS + 2 * MINUTE_MS
    const hour = Math.floor(minute / HOUR_MS) * HOUR_MS
    const other = new pg.Client({ connectionString: url })
    await other.connect()
    // The lock's waiters are watched from a connection of their own: inside other's transaction,
    // pg_stat_activity is read once and kept (its first look, taken before the read waits, never changed).
    const watcher = new pg.Client({ connectionString: url })
    await watcher.connect()
    t.teardown(async () => { await Promise.all([other.end(), watcher.end()]) })
    // 7 requests of that minute, as the writer counts them: in its minute row and in its hour's row.
    await other.query(`INSERT INTO profile_route_stats (span_ms, start_ms, deployment, method, route, status, count, kept,
        status_1xx, status_2xx, status_3xx, status_4xx, status_5xx, sum_ms, max_ms, histogram)
      SELECT s, t, 'seeded', 'GET', '/seeded', 0, 7, 0, 0, 7, 0, 0, 0, 70, 10, ''::bytea FROM (VALUES ($1::bigint, $2::bigint), ($3, $4)) AS v (s, t)`,
    [MINUTE_MS, minute, HOUR_MS, hour])
    const seeded = async (): Promise<number | undefined> => (await statsJson(app, `?window=${windowMs / MINUTE_MS}m`)).routes.find(line => line.route === '/seeded')?.count
    t.equal(await seeded(), 7, 'the window counts them')

    // Coarsening, as retention does it, in a transaction that holds the table while the window is read.
    await other.query('BEGIN')
    await other.query('LOCK TABLE profile_route_stats IN ACCESS EXCLUSIVE MODE')
    await other.query('DELETE FROM profile_route_stats WHERE span_ms = $1 AND start_ms <= $2', [MINUTE_MS, minute])
    await other.query('UPDATE profile_statistics_coarsened SET minutes_before_ms = $1', [minute + MINUTE_MS])
    const reading = seeded()
    await waitFor(async () => Number((await watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND query LIKE '%FROM profile_route_stats%'`)).rows[0]?.n) > 0, { ...RECOVERY, what: 'the window\'s read waits for the table' })
    await other.query('COMMIT')
    t.equal(await reading, 7, 'read while they were given up, the window still counts them')
    t.equal(await seeded(), 7, 'and after (from their hour\'s row)')
  })
}
