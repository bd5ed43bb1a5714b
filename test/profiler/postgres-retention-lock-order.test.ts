// run-suite: shares a process
// The order in which PostgreSQL's retention locks the rows writers lock too. A writer's store
// statement locks the URLs, IPs and per-process panels of its batch, then its partitions' count
// rows (engine/postgres/store-profiles.ts). Retention pruning for size took the count rows first
// (the deleted profiles off their partitions' counts), then swept the URLs no profile names any
// more: a writer naming such a URL again at that moment waited for retention's count row while
// retention waited for the writer's URL row, a deadlock PostgreSQL broke after deadlock_timeout by
// failing one of them. Here the writer's URL lock is held by the test, and while retention waits
// for it the partitions' counts must still be free to take.
import pg from 'pg'
import t from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { needsPostgres, SCHEMA_BYTES_SQL, startPostgres } from '../helpers/postgres.js'
import { scannerPath } from '../helpers/scanner.js'
import { waitFor } from '../helpers/wait-for.js'

const PROFILES = 200

if (needsPostgres(t)) {
  t.test('retention pruning for size waits for a URL row without holding the partitions\' count rows', async t => {
    const cluster = await startPostgres(t)
    const url = await cluster.createDatabase('lockorder')
    // The instance that writes: its bound far above what the test stores, so it never prunes.
    const writer = await buildApp(testConfig(t, { PROFILER_DATABASE_URL: url }), { profiler: { retentionIntervalMs: 3_600_000 } })
    t.teardown(async () => { await writer.close() })
    // The oldest profile names a URL no later one does: pruned, its row is swept.
    await writer.inject({ url: '/first-and-only-once' })
    for (let i = 0; i < PROFILES; i++) await writer.inject({ url: scannerPath(i) })
    await writer.profileStore.flush()

    const holder = new pg.Client({ connectionString: url })
    const prober = new pg.Client({ connectionString: url })
    const watcher = new pg.Client({ connectionString: url })
    await Promise.all([holder.connect(), prober.connect(), watcher.connect()])
    t.teardown(async () => { await Promise.all([holder.end(), prober.end(), watcher.end()]) })
    const bytes = Number((await watcher.query(SCHEMA_BYTES_SQL)).rows[0].bytes)

    // A writer naming that URL again holds its row until its batch commits (its count rows next).
    await holder.query('BEGIN')
    const held = await holder.query("SELECT hash FROM profile_urls WHERE url LIKE '%/first-and-only-once' FOR UPDATE")
    t.equal(held.rowCount, 1, 'the oldest profile\'s URL is stored')

    // An instance sharing the store with a byte bound of half what it holds: pruning for size.
    const pruner = await buildApp(testConfig(t, { PROFILER_DATABASE_URL: url, PROFILER_MAX_BYTES: String(Math.floor(bytes / 2)) }),
      { profiler: { retentionIntervalMs: 3_600_000 } })
    t.teardown(async () => { await pruner.close() })
    const pruning = pruner.profileStore.prune()
    pruning.catch(() => {}) // awaited below, once the URL row is let go

    await waitFor(async () => (await watcher.query(`SELECT 1 FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM profile_urls%'`)).rowCount === 1,
    { what: 'retention\'s sweep waiting for the held URL row', timeoutMs: 60_000 })

    // What the writer would do next: take its partitions' count rows. Free, or the two wait for each other.
    let counts: string
    try {
      const { rowCount } = await prober.query('SELECT partition FROM profile_counts FOR UPDATE NOWAIT')
      counts = `free (${rowCount ?? 0} rows)`
    } catch (error) {
      counts = `held by retention (${(error as Error).message})`
    }
    t.match(counts, /^free/, 'while retention waits for the URL row, the partitions\' count rows are free')

    await holder.query('ROLLBACK')
    await pruning
    const [stored, summed, first] = await Promise.all([
      watcher.query('SELECT count(*)::int AS n FROM profiles'),
      watcher.query('SELECT coalesce(sum(profiles), 0)::int AS n FROM profile_counts'),
      watcher.query("SELECT 1 FROM profile_urls WHERE url LIKE '%/first-and-only-once'")
    ])
    t.ok(stored.rows[0].n < PROFILES + 1, `pruned for size: ${stored.rows[0].n} of ${PROFILES + 1} profiles left`)
    t.equal(summed.rows[0].n, stored.rows[0].n, 'the partitions\' counts add up to the profiles stored')
    t.equal(first.rowCount, 0, 'the URL no stored profile names is swept')
  })
}
