// run-suite: shares a process
// The profiler's reads plan generically (one plan a statement) and without JIT. A generic plan takes
// LIMIT $n for a tenth of the rows: at 1 M profiles (123 partitions) the search with a URL negation was
// estimated past jit_optimize_above_cost, and 755 functions were compiled at every execution (25.9 s
// of a 26.0 s search under load, past the reader's statement timeout: bench --only=search failed).
// A store that large is the bench's; here the database's JIT thresholds are lowered to 0 instead,
// the estimate every plan then passes, and pg_stat_statements tells the JIT's work a statement did.
import t from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { listProfiles, profileJson } from '../helpers/profiler.js'
import { countStatements, needsPostgres, startPostgres } from '../helpers/postgres.js'

if (needsPostgres(t)) {
  t.test('the search and a profile page on a store whose plans all pass the JIT thresholds: no statement of theirs JIT-compiled', async t => {
    const cluster = await startPostgres(t)
    const url = await cluster.createStore('jit')
    const counts = await countStatements(cluster, 'jit')
    const [available] = await cluster.query<{ ok: boolean }>('SELECT pg_jit_available() AS ok')
    if (available?.ok !== true) {
      t.plan(0, 'this PostgreSQL server has no JIT (llvmjit): nothing to compile')
      return
    }
    for (const setting of ['jit_above_cost', 'jit_optimize_above_cost', 'jit_inline_above_cost']) await cluster.query(`ALTER DATABASE jit SET ${setting} = 0`)
    const app = await buildApp(testConfig(t, { PROFILER_DATABASE_URL: url }))
    t.teardown(async () => { await app.close() })
    for (let i = 0; i < 5; i++) await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{}' })
    await counts.reset()
    const listed = await listProfiles(app, `url=${encodeURIComponent('!/nothing/')}&limit=10`)
    t.ok(listed.length > 0, `the search found the requests (${listed.length})`)
    await profileJson(app, listed[0]?.token ?? '')
    const rows = await cluster.query<{ query: string, jit: string }>(`SELECT s.query, s.jit_functions AS jit FROM pg_stat_statements s
      JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'jit' AND s.query ~ 'FROM profiles p'`)
    t.ok(rows.length >= 2, `the search's and the page's statements counted (${rows.length})`)
    t.same(rows.filter(row => Number(row.jit) > 0).map(row => `${row.jit} functions: ${row.query.slice(0, 120)}`), [], 'no JIT compilation in them')
  })
}
