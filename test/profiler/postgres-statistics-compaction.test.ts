// On PostgreSQL the route statistics, once coarsened into their share, are rewritten (VACUUM FULL
// profile_route_stats) under a lock timeout. statistics-bound failed now and then under load with
// the statistics still over their share after a prune: an autovacuum of the table (the deletes of
// coarsening call one) held it, and a lock timeout equal to the server's deadlock_timeout ran out
// before the waiter's deadlock check could cancel that autovacuum; a prune also gave up after two
// tries. The first test has a cluster of its own: it makes autovacuum visit every second (a server setting).
import t, { type Test } from 'tap'
import pg from 'pg'
import { STATISTICS_SHARE } from '../../plugins/profiler/engine/retention-policy.js'
import { buildTestApp } from '../helpers/app.js'
import { needsPostgres, queryOn, sharedPostgres, startPostgres, type PostgresDatabases } from '../helpers/postgres.js'
import { seedStatistics, statisticsBytes } from '../helpers/seeded-statistics.js'
import { waitFor } from '../helpers/wait-for.js'

const BOUND = 2 * 1024 * 1024
/** No background step of its own during the test: what rewrites the statistics is the prune. */
const overrides = { profiler: { retentionIntervalMs: 600_000 } }

/** A store (migrated by a first app) holding statistics several times the bound (seeded, then vacuumed); its environment. */
async function overShare (t: Test, cluster: Pick<PostgresDatabases, 'createDatabase'>, name: string): Promise<Record<string, string>> {
  const env = { PROFILER_DATABASE_URL: await cluster.createDatabase(name), PROFILER_DEPLOYMENT: 'seeded' }
  const migrating = await buildTestApp(t, env, undefined, overrides)
  await migrating.close()
  await seedStatistics(env, { keys: 10, minuteDays: 1, hourDays: 30, deployment: 'seeded', nowMs: Date.now() })
  t.ok(await statisticsBytes(env) > 4 * BOUND * STATISTICS_SHARE, 'the statistics hold several times their share')
  return env
}

/** Attempts of VACUUM FULL on the statistics seen waiting for their lock (each by its start). */
function rewriteAttempts (url: string): { seen: Set<string>, look: () => Promise<void> } {
  const seen = new Set<string>()
  return {
    seen,
    look: async () => {
      const rows = await queryOn(url, `SELECT pid, query_start FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'VACUUM FULL profile_route_stats%'`)
      for (const row of rows) seen.add(`${String(row.pid)} ${String(row.query_start)}`)
    }
  }
}

if (needsPostgres(t)) {
  t.test('an autovacuum of the statistics under way: the prune\'s rewrite has it cancelled and runs', async t => {
    const cluster = await startPostgres(t)
    await cluster.query('ALTER SYSTEM SET autovacuum_naptime = 1')
    await cluster.query('SELECT pg_reload_conf()')
    const env = await overShare(t, cluster, 'autovacuumed')
    const url = env.PROFILER_DATABASE_URL as string
    // Dead row versions call an autovacuum of the table (in the suite: the deletes of coarsening),
    // here one that crawls (100 ms a page): it still runs when the prune rewrites the table.
    await queryOn(url, `ALTER TABLE profile_route_stats SET (autovacuum_vacuum_cost_delay = 100, autovacuum_vacuum_cost_limit = 1,
      autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0)`)
    await queryOn(url, 'UPDATE profile_route_stats SET count = count WHERE start_ms = (SELECT min(start_ms) FROM profile_route_stats)')
    const autovacuum = async (): Promise<boolean> => (await queryOn(url, `SELECT 1 FROM pg_stat_activity
      WHERE backend_type = 'autovacuum worker' AND query LIKE '%profile_route_stats%'`)).length > 0
    await waitFor(autovacuum, { what: 'an autovacuum of profile_route_stats', timeoutMs: 60_000, intervalMs: 50 })

    const app = await buildTestApp(t, { ...env, PROFILER_MAX_BYTES: String(BOUND) }, undefined, overrides)
    await app.profileStore.prune()
    const bytes = await statisticsBytes(env)
    t.ok(bytes <= BOUND * STATISTICS_SHARE, `the statistics hold ${bytes} bytes after the prune, within their share (${BOUND * STATISTICS_SHARE})`)
  })

  t.test('a reader holding the statistics through two rewrite attempts: the prune tries again until the rewrite runs', async t => {
    const env = await overShare(t, await sharedPostgres(t), 'read')
    const url = env.PROFILER_DATABASE_URL as string
    // A reader's open transaction: its share lock stays until it ends, and each rewrite gives up.
    const reader = new pg.Client({ connectionString: url })
    await reader.connect()
    t.teardown(async () => { await reader.end() })
    await reader.query('BEGIN')
    await reader.query('SELECT count(*) FROM profile_route_stats')

    const app = await buildTestApp(t, { ...env, PROFILER_MAX_BYTES: String(BOUND) }, undefined, overrides)
    let pruned = false
    const prune = app.profileStore.prune().finally(() => { pruned = true })
    // Three attempts gave up (a prune used to stop after two), or the prune ended first.
    const attempts = rewriteAttempts(url)
    await waitFor(async () => { await attempts.look(); return pruned || attempts.seen.size >= 3 }, { what: 'three rewrite attempts', timeoutMs: 90_000, intervalMs: 50 })
    t.notOk(pruned, `the prune was still trying after ${attempts.seen.size} attempts`)
    await reader.query('COMMIT')
    await prune
    const bytes = await statisticsBytes(env)
    t.ok(bytes <= BOUND * STATISTICS_SHARE, `the statistics hold ${bytes} bytes once the reader is done, within their share (${BOUND * STATISTICS_SHARE})`)
  })
}
