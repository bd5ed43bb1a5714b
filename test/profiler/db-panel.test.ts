// run-suite: shares a process

// The database panel: the statements a request ran on the advisors' database (SQLite, or
// PostgreSQL with its profile store there too), through the page, its JSON twin, the listing's
// rows and filters, the CLI and MCP; the caps, redaction, grouping and Server-Timing.
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { MAX_SQL_CHARS, MAX_STATEMENTS, recordSync } from '../../lib/statement-log.js'
import { buildTestApp, postJson } from '../helpers/app.js'
import { advisorEngines, type AdvisorEngine } from '../helpers/advisor-engines.js'
import { json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { listProfiles, profileJson } from '../helpers/profiler.js'
import { profiler } from '../helpers/profiler-cli.js'

const LOOKUP = '/ccenter/getConseillerByCode'
const POLL = '/monitor/MonitorPooling'
const SERVER_TIMING = /^db;dur=(\d+\.\d{3});desc="(\d+) (?:query|queries)", app;dur=(\d+\.\d{3})$/

const engines = advisorEngines(t)

/** The app with test-only routes that run many statements through the request's repository. */
async function appOn (t: Test, engine: AdvisorEngine, env: Record<string, string> = {}): Promise<FastifyInstance> {
  return await buildTestApp(t, { ...await engine.env(t), ...env }, app => {
    app.get('/test/lookups/:times', async request => {
      const times = Number((request.params as { times: string }).times)
      for (let i = 0; i < times; i++) await request.advisors.findByCode('ADV1001')
      await request.advisors.findByCode('ADV1002')
      return { ok: true }
    })
  })
}

/** A profiler page as a browser gets it (HTML), after writing whatever is queued (the test apps have no secret). */
async function profilerPage (app: FastifyInstance, path: string): Promise<{ statusCode: number, type: string, body: string }> {
  await app.profileStore.flush()
  const res = await app.inject(`/_profiler${path}`)
  return { statusCode: res.statusCode, type: String(res.headers['content-type']), body: res.body }
}

/** The environment that points the CLI and MCP at the app's profile store. */
function storeEnv (app: FastifyInstance): Record<string, string> {
  const url = app.config.profilerDatabaseUrl
  return url === null ? { PROFILER_DATABASE_PATH: app.config.profilerDatabasePath } : { PROFILER_DATABASE_URL: url }
}

const dbPanel = async (app: FastifyInstance, token: string) => (await profileJson(app, token, '?panel=db')).panels.db

for (const engine of engines) {
  t.test(`${engine.name}: a lookup's SELECT, with its parameter, rows, time and runnable query`, async t => {
    const app = await appOn(t, engine)
    const res = await postJson(app, LOOKUP, { code: 'ADV1001' })
    t.equal(res.statusCode, 200)
    const token = String(res.headers['x-debug-token'])
    const timing = SERVER_TIMING.exec(String(res.headers['server-timing']))
    t.ok(timing, `Server-Timing: ${String(res.headers['server-timing'])}`)
    t.equal(timing?.[2], '1', 'one query')
    t.ok(Number(timing?.[1]) > 0 && Number(timing?.[1]) <= Number(timing?.[3]), 'the database time is within the app time')

    const db = await dbPanel(app, token)
    t.equal(db.engine, engine.name)
    t.equal(db.queryCount, 1)
    t.equal(db.statements.length, 1)
    const [select] = db.statements
    t.equal(select.sql, `SELECT * FROM advisors WHERE code = ${engine.placeholder(1)}`)
    t.equal(select.kind, 'SELECT')
    t.same(select.params, ['ADV1001'])
    t.equal(select.rows, 1)
    t.equal(select.error, null)
    t.equal(select.redacted, false)
    t.ok(select.durationMs > 0 && select.startMs > 0, 'timed from the request start')
    t.equal(db.queryMs, select.durationMs, 'the query time is the statement\'s')

    const [row] = await listProfiles(app, `url=${LOOKUP}`)
    t.equal(row?.token, token)
    t.match(row, { queries: 1, queryMs: select.durationMs }, 'the listing row carries the count and the time')

    const page = await profilerPage(app, `/${token}?panel=db`)
    t.equal(page.type, 'text/html; charset=utf-8')
    t.match(page.body, /id="summary-queries">1 query in /)
    t.match(page.body, /<th>Queries<\/th><td>1<\/td>/)
    t.match(page.body, /<th>Different statements<\/th><td>1<\/td>/)
    const runnable = /<pre tabindex="0" class="runnable">([^<]*)<\/pre>/.exec(page.body)?.[1]?.replace(/&#x([0-9A-F]+);/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    t.equal(runnable, "SELECT * FROM advisors WHERE code = 'ADV1001'", 'the runnable query, quoted for the engine')

    // The CLI and MCP read the same panel.
    const shown = await profiler(['show', token, '--panel', 'db', '--json'], storeEnv(app))
    t.equal(shown.code, 0, shown.stderr)
    t.same(JSON.parse(shown.stdout).panels.db, db, 'profiler show --panel db')
    const client = await mcpClientInProcess(t, storeEnv(app))
    t.same((await json(client, 'get_profile', { token, panels: ['db'] })).panels.db, db, 'MCP get_profile')
    t.same((await json(client, 'search_profiles', { minQueries: 1 })).results.map((r: { token: string }) => r.token), [token], 'MCP minQueries')

    // HAR keeps the statements; compare_profiles compares their count and time.
    const har = await app.inject(`/_profiler/${token}/har`)
    t.same(har.json().log.entries[0]._queries, {
      count: 1,
      totalMs: db.queryMs,
      statements: [{ sql: select.sql, kind: 'SELECT', params: ['ADV1001'], startMs: select.startMs, durationMs: select.durationMs, rows: 1, error: null }]
    }, 'HAR _queries')
    const more = String((await app.inject('/test/lookups/2')).headers['x-debug-token'])
    await app.profileStore.flush()
    const moreDb = await dbPanel(app, more)
    const compared = await json(client, 'compare_profiles', { a: token, b: more })
    t.same(compared.queries, { a: 1, b: 3, delta: 2 })
    t.same(compared.queryMs, { a: db.queryMs, b: moreDb.queryMs, deltaMs: Math.round((moreDb.queryMs - db.queryMs) * 1000) / 1000 })
    t.notOk('server-timing' in compared.responseHeaders, 'Server-Timing differs every time: left out')
  })

  t.test(`${engine.name}: the status poll's statements in order, a write's changed rows`, async t => {
    const app = await appOn(t, engine)
    const res = await postJson(app, POLL, { code: 'ADV1003' })
    t.equal(res.statusCode, 200)
    const db = await dbPanel(app, String(res.headers['x-debug-token']))
    t.same(db.statements.map((s: { kind: string, rows: number }) => [s.kind, s.rows]), [['SELECT', 1], ['SELECT', 1], ['UPDATE', 1]])
    t.same(db.statements[2].params[1], 'ADV1003')
    const starts = db.statements.map((s: { startMs: number }) => s.startMs)
    t.same(starts, [...starts].sort((a, b) => a - b), 'in the order they ran')
  })

  t.test(`${engine.name}: a parameter that looks secret is redacted, and no runnable query is offered`, async t => {
    const app = await appOn(t, engine)
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlcw'
    const res = await postJson(app, LOOKUP, { code: jwt })
    t.equal(res.statusCode, 404)
    const token = String(res.headers['x-debug-token'])
    const db = await dbPanel(app, token)
    t.same(db.statements[0].params, ['[redacted]'])
    t.equal(db.statements[0].redacted, true)
    t.equal(db.statements[0].rows, 0)
    const page = await profilerPage(app, `/${token}?panel=db`)
    t.notOk(page.body.includes('eyJhbGciOiJIUzI1NiJ9'), 'the token is nowhere on the page')
    t.match(page.body, /No runnable query: a parameter was redacted/)
    t.notOk(JSON.stringify(await profileJson(app, token)).includes('eyJhbGciOiJIUzI1NiJ9.eyJzdWIi'), 'nor in the JSON')
  })

  t.test(`${engine.name}: similar and duplicate statements grouped, filters on count and time`, async t => {
    const app = await appOn(t, engine)
    const res = await app.inject('/test/lookups/3')
    t.equal(res.statusCode, 200)
    const token = String(res.headers['x-debug-token'])
    const page = await profilerPage(app, `/${token}?panel=db`)
    t.match(page.body, /<th>Queries<\/th><td>4<\/td>/)
    t.match(page.body, /<th>Different statements<\/th><td>1<\/td>/)
    const similar = /<table id="db-similar">[\s\S]*?<\/table>/.exec(page.body)?.[0] ?? ''
    t.match(similar, /<td class="num">4<\/td>/, 'one SQL, four times')
    const duplicates = /<table id="db-duplicates">[\s\S]*?<\/table>/.exec(page.body)?.[0] ?? ''
    t.match(duplicates, /<td class="num">3<\/td>/, 'the same SQL and parameters three times')
    t.ok(duplicates.includes('[&quot;ADV1001&quot;]'))
    t.notOk(duplicates.includes('ADV1002'), 'a statement run once is no duplicate')

    await postJson(app, LOOKUP, { code: 'ADV1001' })
    await app.inject('/robots.txt')
    const tokens = async (query: string) => (await listProfiles(app, query)).map(row => row.token)
    t.same(await tokens('min_queries=2'), [token])
    t.equal((await tokens('min_queries=1')).length, 2)
    t.equal((await tokens('min_queries=0')).length, 3)
    // Which request spent longest in its statements depends on the machine: the filter is checked
    // against every row's own figure, inclusive at the threshold.
    const rows = await listProfiles(app, 'min_queries=0')
    for (const threshold of new Set(rows.map(row => row.queryMs))) {
      t.same(await tokens(`min_query_ms=${threshold}`), rows.filter(row => row.queryMs >= threshold).map(row => row.token), `at least ${threshold} ms, inclusive`)
    }
    t.same(await tokens('min_query_ms=100000'), [])
    const bad = await profilerPage(app, '/empty/search/results?min_queries=-1')
    t.equal(bad.statusCode, 400)
    t.match(bad.body, /Invalid \\?"min_queries\\?" parameter/)

    const searched = await profiler(['search', '--min-queries', '2', '--json'], storeEnv(app))
    t.equal(searched.code, 0, searched.stderr)
    t.same(JSON.parse(searched.stdout).results.map((r: { token: string }) => r.token), [token], 'profiler search --min-queries')
  })

  t.test(`${engine.name}: at most ${MAX_STATEMENTS} statements kept, the rest counted`, async t => {
    const app = await appOn(t, engine)
    const res = await app.inject(`/test/lookups/${MAX_STATEMENTS + 4}`)
    t.equal(res.statusCode, 200)
    t.match(String(res.headers['server-timing']), `desc="${MAX_STATEMENTS + 5} queries"`)
    const token = String(res.headers['x-debug-token'])
    const db = await dbPanel(app, token)
    t.equal(db.queryCount, MAX_STATEMENTS + 5)
    t.equal(db.statements.length, MAX_STATEMENTS)
    // Each duration and the total are rounded to the µs on their own: the kept ones' sum may pass the
    // total by half a µs per statement (0.01 ms was too tight for 200 of them, and failed now and then).
    const kept = db.statements.reduce((sum: number, s: { durationMs: number }) => sum + s.durationMs, 0)
    t.ok(db.queryMs >= kept - 0.0005 * (db.statements.length + 1), `the time of them all (${db.queryMs} ms, kept ones ${kept} ms)`)
    t.match((await profilerPage(app, `/${token}?panel=db`)).body, /5 more statements ran/)
  })
}

t.test(`at most ${MAX_SQL_CHARS} characters of SQL kept per request`, async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/long-sql', async request => {
      // 20,000 characters each: three fit in 64 KiB, the fourth does not.
      const sql = `SELECT 1 AS one /* ${'x'.repeat(20_000 - 22)} */`
      for (let i = 0; i < 4; i++) recordSync(request.databaseStatements, sql, [], () => app.db.prepare(sql).get(), () => 1)
      return { ok: true }
    })
  })
  const res = await app.inject('/test/long-sql')
  const db = await dbPanel(app, String(res.headers['x-debug-token']))
  t.equal(db.queryCount, 4)
  t.equal(db.statements.length, 3)
  t.equal(db.statements[0].sql.length, 20_000)
})

t.test('a failed statement keeps its error; a secret-named column\'s parameter is redacted', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/failing', async request => {
      const sql = 'SELECT * FROM advisors WHERE password = ?'
      try {
        recordSync(request.databaseStatements, sql, ['hunter2'], () => app.db.prepare(sql).get('hunter2'), () => 1)
      } catch {}
      return { ok: true }
    })
  })
  const res = await app.inject('/test/failing')
  const db = await dbPanel(app, String(res.headers['x-debug-token']))
  t.match(db.statements[0], { kind: 'SELECT', params: ['[redacted]'], redacted: true, rows: null, error: /no such column: password/ })
})

t.test('Server-Timing on every profiled response, none on the profiler\'s own pages', async t => {
  const app = await buildTestApp(t)
  const missing = await app.inject('/robots.txt')
  t.equal(missing.statusCode, 404)
  t.match(String(missing.headers['server-timing']), /^db;dur=0\.000;desc="0 queries", app;dur=\d+\.\d{3}$/)
  const page = await app.inject({ url: '/_profiler/empty/search/results', headers: { accept: 'application/json' } })
  t.equal(page.statusCode, 200)
  t.equal(page.headers['server-timing'], undefined)
})

t.test('slow statements are marked above PROFILER_SLOW_QUERY', async t => {
  const app = await buildTestApp(t, { PROFILER_SLOW_QUERY: '0ms' })
  const res = await postJson(app, LOOKUP, { code: 'ADV1001' })
  const page = await profilerPage(app, `/${String(res.headers['x-debug-token'])}?panel=db`)
  t.match(page.body, /Slow: over 0 ms/)
  t.match(page.body, /<span class="label status-warning">slow<\/span>/)
  const relaxed = await buildTestApp(t)
  const other = await postJson(relaxed, LOOKUP, { code: 'ADV1001' })
  const otherToken = String(other.headers['x-debug-token'])
  const calm = await profilerPage(relaxed, `/${otherToken}?panel=db`)
  t.match(calm.body, /Slow: over 10\.0 ms/)
  // A lookup takes well under 10 ms, unless the machine descheduled the thread mid-statement (CI's
  // CPU hog): the mark follows the statement's own recorded time either way.
  const [statement] = (await dbPanel(relaxed, otherToken)).statements as Array<{ durationMs: number }>
  if ((statement?.durationMs ?? 0) > 10) t.match(calm.body, /status-warning">slow/, 'a lookup the machine slowed past 10 ms is marked')
  else t.notMatch(calm.body, /status-warning">slow/, 'a lookup under 10 ms is not marked')
})
