// run-suite: shares a process

// What one batch asks of the PostgreSQL server at a low sampling rate (issue 38): at
// PROFILER_SAMPLE=0.01 nearly every batch holds one to a few kept profiles, and once a second the
// statistics-only requests ride with one. Each statement is a round trip, and the server parses,
// plans and runs it: the profiles' rows used to take six statements, the statistics' stamp two, and a
// batch claiming no token still ran the claim. Counted with pg_stat_statements, through the service;
// the statistics those batches wrote are read back through its JSON, exact.
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { listProfiles, statsJson } from '../helpers/profiler.js'
import { countStatements, needsPostgres, startPostgres, type StatementCounts } from '../helpers/postgres.js'

const ROUTE = '/monitor/MonitorPooling'
const BATCHES = 20

async function poll (app: FastifyInstance): Promise<string | undefined> {
  const response = await app.inject({ method: 'POST', url: ROUTE, headers: { 'content-type': 'application/json' }, payload: '{}' })
  if (response.statusCode !== 200) throw new Error(`the poll answered ${response.statusCode}`)
  return response.headers['x-debug-token'] as string | undefined
}

/** The route's requests counted in the statistics (the JSON of the 1h window), and how many of them kept. */
async function counted (app: FastifyInstance): Promise<{ count: number, kept: number }> {
  const line = (await statsJson(app)).routes.find(route => route.route === ROUTE)
  return { count: line?.count ?? 0, kept: line?.kept ?? 0 }
}

/** A service on a store of its own at `sample`, far from every bound, a few batches written (the partitions made, the statements prepared), its statements counted from there. */
async function countedService (t: Test, sample: string): Promise<{ app: FastifyInstance, counts: StatementCounts, before: { count: number, kept: number } }> {
  const cluster = await startPostgres(t)
  const url = await cluster.createDatabase('batches')
  const counts = await countStatements(cluster, 'batches')
  // The retention loop's interval far beyond the test: what runs is what the batches cause.
  const app = await buildApp(testConfig(t, { PROFILER_DATABASE_URL: url, PROFILER_SAMPLE: sample }), { profiler: { retentionIntervalMs: 600_000 } })
  t.teardown(async () => { await app.close() })
  for (let i = 0; i < 3; i++) {
    await poll(app)
    await app.profileStore.flush()
  }
  await app.profileStore.prune()
  // Read before counting: the pages' statements are counted too (the same database).
  const before = await counted(app)
  await counts.reset()
  return { app, counts, before }
}

/** Statements run since the reset, but the store's size measurements (retention's, when the room the last one left is used up: postgres-retention-cost.test.ts bounds those). */
async function statementsRun (counts: StatementCounts): Promise<{ total: number, byText: string[] }> {
  const rows = (await counts.read()).filter(row => !row.query.includes('pg_total_relation_size'))
  return {
    total: rows.reduce((sum, row) => sum + row.calls, 0),
    byText: rows.map(row => `${row.calls} × ${row.query.replace(/\s+/g, ' ').slice(0, 80)}`)
  }
}

if (needsPostgres(t)) {
  t.test('a batch of statistics-only requests: its stamp and the route statistics, in one transaction (5 statements: no look at the token claims)', async t => {
    const { app, counts, before } = await countedService(t, '0')
    for (let i = 0; i < BATCHES; i++) {
      for (let r = 0; r < 10; r++) await poll(app)
      await app.profileStore.flush()
    }
    const { total, byText } = await statementsRun(counts)
    t.comment(`${BATCHES} batches of 10 statistics-only requests: ${total} statements\n${byText.join('\n')}`)
    // BEGIN, the stamp (recorded, the older ones forgotten), the rows locked and written, COMMIT. The
    // claims of other instances are looked at between batches (a batch that claimed none looked too).
    t.ok(total <= BATCHES * 5, `${(total / BATCHES).toFixed(2)} statements a batch (at most 5)`)
    t.same(await counted(app), { count: before.count + BATCHES * 10, kept: before.kept }, 'every request counted once, none kept')
  })

  t.test('a batch of one kept profile: its claim, the route statistics and every row of the profile in one statement (6: no look at its own token claims)', async t => {
    const { app, counts, before } = await countedService(t, '1')
    for (let i = 0; i < BATCHES; i++) {
      if (await poll(app) === undefined) throw new Error('the request was not profiled')
      await app.profileStore.flush()
    }
    const { total, byText } = await statementsRun(counts)
    t.comment(`${BATCHES} batches of one profile: ${total} statements\n${byText.join('\n')}`)
    // BEGIN, the claim, the rows locked and written, the profile's rows, COMMIT. The claims since the
    // last look are the batch's own (one instance): not read back (they were, a statement a batch).
    t.ok(total <= BATCHES * 6, `${(total / BATCHES).toFixed(2)} statements a batch (at most 6)`)
    t.same(await counted(app), { count: before.count + BATCHES, kept: before.kept + BATCHES }, 'every request counted once and kept')
    t.equal((await listProfiles(app)).length, 3 + BATCHES, 'every profile listed')
  })
}
