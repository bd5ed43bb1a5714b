// run-suite: shares a process
// PostgreSQL gives the space coarsening freed back with VACUUM FULL profile_route_stats: an
// exclusive lock. Queued behind a long reader of the table, that lock request held up every
// writer of it (and pruning) until the reader ended. It waits 1 s at most, then is tried again at
// a later step; once the reader is gone it runs.
import pg from 'pg'
import t from 'tap'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { STATISTICS_SHARE } from '../../plugins/profiler/engine/retention-policy.js'
import { needsPostgres, startPostgres } from '../helpers/postgres.js'
import { seedStatistics, statisticsBytes } from '../helpers/seeded-statistics.js'

const BOUND = 8 * 1024 * 1024

/** The promise's value, or 'timed out' after `seconds`. */
async function within<T> (seconds: number, promise: Promise<T>): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timed out'>(resolve => { timer = setTimeout(() => { resolve('timed out') }, seconds * 1000) })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

if (needsPostgres(t)) {
  t.test('a reader holding the statistics table: pruning and writes go on, the table is compacted once it ends', async t => {
    const cluster = await startPostgres(t)
    const url = await cluster.createDatabase('compact')
    const env = { PROFILER_DATABASE_URL: url }
    const limits = { maxProfiles: 100_000, maxAgeMs: 86_400_000, maxBytes: BOUND, statsMaxAgeMs: 30 * 86_400_000 }
    const events = { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} }
    const writer = await openStoreWriter({ engine: 'postgres', url }, 'A', limits, 3_600_000, events)
    t.teardown(async () => { await writer.close() })
    // Ten days of hour rows for 300 keys: over the statistics' share, to be coarsened and compacted.
    await seedStatistics(env, { keys: 300, minuteDays: 1 / 24, hourDays: 10, deployment: 'A', nowMs: Date.now(), perMinute: 1 })
    t.ok(await statisticsBytes(env) > BOUND * STATISTICS_SHARE, 'the statistics are over their share')

    const reader = new pg.Client({ connectionString: url })
    await reader.connect()
    await reader.query('BEGIN')
    await reader.query('SELECT count(*) FROM profile_route_stats')
    const pruned = await within(20, writer.prune(Date.now()))
    t.not(pruned, 'timed out', 'pruning ends while the reader holds the table')
    const written = await within(10, writer.write([], [{ startMs: Date.now(), method: 'GET', route: '/during', statusCode: 200, durationMs: 1 }]))
    t.not(written, 'timed out', 'a write of the statistics is not held up')
    await reader.query('COMMIT')
    await reader.end()

    await writer.prune(Date.now())
    const bytes = await statisticsBytes(env)
    t.ok(bytes <= BOUND * STATISTICS_SHARE, `once the reader ended, the table was compacted: ${bytes} bytes, within ${BOUND * STATISTICS_SHARE}`)
  })
}
