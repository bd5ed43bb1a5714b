// run-suite: shares a process
// On PostgreSQL the route statistics, once coarsened into their share, are rewritten (VACUUM FULL
// profile_route_stats) under a lock timeout. statistics-bound failed now and then under load with
// the statistics still over their share after a prune: an autovacuum of the table (the deletes of
// coarsening call one) held it, and a lock timeout equal to the server's deadlock_timeout ran out
// before the waiter's deadlock check could cancel that autovacuum. (Behind a reader's lock a prune
// still ends without the rewrite: statistics-compact-lock.) A cluster of its own: the test makes
// autovacuum visit every second (a server setting).
import t, { type Test } from 'tap'
import { STATISTICS_SHARE } from '../../plugins/profiler/engine/retention-policy.js'
import { buildTestApp } from '../helpers/app.js'
import { needsPostgres, queryOn, startPostgres, type PostgresCluster } from '../helpers/postgres.js'
import { seedStatistics, statisticsBytes } from '../helpers/seeded-statistics.js'
import { waitFor } from '../helpers/wait-for.js'

const BOUND = 2 * 1024 * 1024
/** No background step of its own during the test: what rewrites the statistics is the prune. */
const overrides = { profiler: { retentionIntervalMs: 600_000 } }

/** A store (migrated by a first app) holding statistics several times the bound (seeded, then vacuumed); its environment. */
async function overShare (t: Test, cluster: PostgresCluster, name: string): Promise<Record<string, string>> {
  const env = { PROFILER_DATABASE_URL: await cluster.createDatabase(name), PROFILER_DEPLOYMENT: 'seeded' }
  const migrating = await buildTestApp(t, env, undefined, overrides)
  await migrating.close()
  await seedStatistics(env, { keys: 10, minuteDays: 1, hourDays: 30, deployment: 'seeded', nowMs: Date.now() })
  t.ok(await statisticsBytes(env) > 4 * BOUND * STATISTICS_SHARE, 'the statistics hold several times their share')
  return env
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
}
