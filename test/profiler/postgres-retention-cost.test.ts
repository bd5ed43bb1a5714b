// run-suite: shares a process

// What the PostgreSQL store's retention asks of the database server while no bound is near (issue
// 38): at PROFILER_SAMPLE=0.01 a retention step after every written batch, each measuring the
// store's size five times (pg_total_relation_size over every table, index and TOAST), and two more
// measurements before every batch, were most of the server's CPU. Counted with pg_stat_statements.
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { countStatements, needsPostgres, startPostgres, type StatementCounts } from '../helpers/postgres.js'
import { waitFor } from '../helpers/wait-for.js'

interface Tally { total: number, measurements: number, steps: number }

/** Statements run, the store's size measurements among them, and retention steps begun (each takes the retention lock first). */
async function tally (counts: StatementCounts): Promise<Tally> {
  const rows = await counts.read()
  const sum = (match: (query: string) => boolean): number => rows.filter(row => match(row.query)).reduce((calls, row) => calls + row.calls, 0)
  return {
    total: sum(() => true),
    measurements: sum(query => query.includes('pg_total_relation_size')),
    steps: sum(query => /pg_(try_)?advisory_xact_lock/.test(query))
  }
}

/** One request, written as a batch of its own. */
async function writeOneBatch (app: FastifyInstance, i: number): Promise<void> {
  const response = await app.inject({ url: `/probe/${i}` })
  if (response.headers['x-debug-token'] === undefined) throw new Error('the request was not profiled')
  await app.profileStore.flush()
}

/** A service on a store of its own, far from every bound, whose statements are counted; a few batches written first (the partitions made, the store measured once). */
async function countedService (t: Test, retentionIntervalMs: number): Promise<{ app: FastifyInstance, counts: StatementCounts }> {
  const cluster = await startPostgres(t)
  const url = await cluster.createDatabase('cost')
  const counts = await countStatements(cluster, 'cost')
  const app = await buildApp(testConfig(t, { PROFILER_DATABASE_URL: url }), { profiler: { retentionIntervalMs } })
  t.teardown(async () => { await app.close() })
  for (let i = 0; i < 3; i++) await writeOneBatch(app, i)
  await app.profileStore.prune()
  await counts.reset()
  return { app, counts }
}

if (needsPostgres(t)) {
  t.test('batches written far from every bound: no retention step and no measurement of the store per batch', async t => {
    // The loop's own interval far beyond the test: what runs is what the batches cause.
    const { app, counts } = await countedService(t, 60_000)
    const BATCHES = 20
    for (let i = 0; i < BATCHES; i++) await writeOneBatch(app, 100 + i)
    const { total, measurements, steps } = await tally(counts)
    t.comment(`${BATCHES} batches: ${total} statements, ${measurements} size measurements, ${steps} retention steps`)
    t.equal(steps, 0, 'no retention step ran for the batches (none of the bounds was near)')
    // At most one: makeRoom's, once the room the last measurement left is used up (and a step under way when counting began).
    t.ok(measurements <= 2, `the store's size was measured ${measurements} times for ${BATCHES} batches`)
    t.ok(total <= BATCHES * 14, `${(total / BATCHES).toFixed(1)} statements a batch: its own transaction and the look at the token claims`)
  })

  t.test('an idle store: the retention loop measures the store once a step, and runs nothing else', async t => {
    const { counts } = await countedService(t, 100)
    await waitFor(async () => (await tally(counts)).steps >= 10, { what: 'ten retention steps', timeoutMs: 60_000, intervalMs: 50 })
    const { total, measurements, steps } = await tally(counts)
    t.comment(`${steps} idle steps: ${total} statements, ${measurements} size measurements`)
    // (+1: a step under way as the counts were read.)
    t.ok(measurements <= steps + 1, `${measurements} size measurements in ${steps} steps`)
    t.ok(total <= (steps + 1) * 18, `${(total / steps).toFixed(1)} statements a step, the look at the token claims included`)
  })
}
