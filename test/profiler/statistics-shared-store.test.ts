// run-suite: shares a process
// Two instances (deployments A and B) sharing one PostgreSQL store coarsen its statistics in turn,
// a step each under the retention lock. Each counted the rows once and then took off only the rows
// it deleted itself (and measured the bytes a row takes after the other's deletes): each went on
// until its own view was down to the target, and together they deleted far more than one does.
import t from 'tap'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { STATISTICS_SHARE } from '../../plugins/profiler/engine/retention-policy.js'
import { needsPostgres, startPostgres } from '../helpers/postgres.js'
import { seedStatistics, statisticsBytes, statisticsRows } from '../helpers/seeded-statistics.js'

const BOUND = 8 * 1024 * 1024
const limits = { maxProfiles: 100_000, maxAgeMs: 86_400_000, maxBytes: BOUND, statsMaxAgeMs: 30 * 86_400_000 }
const events = { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} }

if (needsPostgres(t)) {
  t.test('two instances coarsening one store delete what one alone does, not more', async t => {
    const cluster = await startPostgres(t)
    const nowMs = Date.now()
    const seeded = async (name: string, deployments: string[]) => {
      const url = await cluster.createDatabase(name)
      const writers: Array<Awaited<ReturnType<typeof openStoreWriter>>> = []
      for (const deployment of deployments) writers.push(await openStoreWriter({ engine: 'postgres', url }, deployment, limits, 3_600_000, events))
      t.teardown(async () => { for (const writer of writers) await writer.close() })
      // Ten days of hour rows for 300 keys of each deployment's routes: over the statistics' share.
      for (const deployment of ['A', 'B']) {
        await seedStatistics({ PROFILER_DATABASE_URL: url }, { keys: 150, minuteDays: 1 / 24, hourDays: 10, deployment, nowMs, perMinute: 1 })
      }
      return { env: { PROFILER_DATABASE_URL: url }, writers }
    }

    const alone = await seeded('alone', ['A'])
    const shared = await seeded('shared', ['A', 'B'])
    const seededRows = await statisticsRows(alone.env)
    t.ok(await statisticsBytes(shared.env) > BOUND * STATISTICS_SHARE, 'the statistics are over their share')

    await alone.writers[0]?.prune(nowMs)
    // Both instances at once: their steps take the retention lock in turn.
    await Promise.all(shared.writers.map(async writer => { await writer.prune(nowMs) }))

    const aloneRows = await statisticsRows(alone.env)
    const sharedRows = await statisticsRows(shared.env)
    t.comment(`${seededRows} rows seeded; one instance left ${aloneRows}, two left ${sharedRows}`)
    t.ok(aloneRows < seededRows, 'one instance coarsened the statistics')
    t.ok(sharedRows >= aloneRows * 0.9, `two instances left ${sharedRows} rows, about the ${aloneRows} one leaves`)
    const bytes = await statisticsBytes(shared.env)
    t.ok(bytes <= BOUND * STATISTICS_SHARE, `the statistics hold ${bytes} bytes, within their share`)
  })
}
