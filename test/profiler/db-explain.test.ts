// run-suite: shares a process
// The db panel's Explain page (/_profiler/<token>/db/explain?statement=N), on both engines: the plan
// of a recorded SELECT made on the advisors' database (SQLite EXPLAIN QUERY PLAN on a read-only
// connection, PostgreSQL EXPLAIN in a read-only transaction), never run; everything else refused
// with a 4xx that says why; a failure a clear error, never a 500; the pages' security.
import { rmSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { recordAsync, recordSync } from '../../lib/statement-log.js'
import { buildTestApp, postJson } from '../helpers/app.js'
import { advisorEngines, type AdvisorEngine } from '../helpers/advisor-engines.js'
import { queryOn } from '../helpers/postgres.js'
import { basicAuth } from '../helpers/profiler.js'

const LOOKUP = '/ccenter/getConseillerByCode'
const POLL = '/monitor/MonitorPooling'
const SECRET = 'explain-secret-0123456789'

/**
 * A SELECT that fails when it runs and plans fine: its plan proves the statement was not run (a run,
 * or EXPLAIN ANALYZE, would fail). SQLite: abs() of the smallest integer overflows; PostgreSQL: a
 * division by a subquery's zero (not folded when planning).
 */
const NEVER_RUN = {
  sqlite: 'SELECT abs(-9223372036854775808) AS never FROM advisors WHERE code = ?',
  postgres: 'SELECT 1 / (SELECT count(*) - count(*) FROM advisors) AS never FROM advisors WHERE code = $1'
}
/** Markup in the SQL, and (on PostgreSQL) in the plan's index condition. */
const MARKUP = "SELECT code FROM advisors WHERE code = '<b>x</b>'"

/** Runs `sql` on the advisors' database as a handler would, recorded in the request's statements; a failure is recorded and swallowed. */
async function runRecorded (app: FastifyInstance, engine: AdvisorEngine, request: { databaseStatements: Parameters<typeof recordSync>[0] }, sql: string, params: unknown[]): Promise<void> {
  try {
    if (engine.name === 'sqlite') {
      recordSync(request.databaseStatements, sql, params, () => app.db.prepare(sql).all(...params), rows => rows.length)
    } else {
      const pool = await app.postgresDatabase?.get()
      await recordAsync(request.databaseStatements, sql, params, async () => await pool?.query(sql, params), result => result?.rowCount ?? 0)
    }
  } catch {}
}

/** The app on `engine`, with test-only routes that run the statements above. */
async function appOn (t: Test, engine: AdvisorEngine, env: Record<string, string> = {}): Promise<FastifyInstance> {
  return await buildTestApp(t, { ...await engine.env(t), ...env }, app => {
    app.get('/test/never-run', async request => {
      await runRecorded(app, engine, request, NEVER_RUN[engine.name], ['ADV1001'])
      return { ok: true }
    })
    app.get('/test/markup', async request => {
      await runRecorded(app, engine, request, MARKUP, [])
      return { ok: true }
    })
  })
}

const tokenOf = (res: { headers: Record<string, unknown> }): string => String(res.headers['x-debug-token'])

/** A profiler page (HTML, or JSON with `json`), after writing whatever is queued; with the app's secret when it has one. */
async function page (app: FastifyInstance, path: string, json = false) {
  await app.profileStore.flush()
  const secret = app.config.profilerSecret
  return await app.inject({
    url: `/_profiler${path}`,
    headers: { accept: json ? 'application/json' : 'text/html', ...(secret === null ? {} : { authorization: basicAuth(secret) }) }
  })
}

const decoded = (html: string): string => html.replace(/&#x([0-9A-F]+);/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&')

const engines = advisorEngines(t)

for (const engine of engines) {
  t.test(`${engine.name}: the lookup's SELECT explained, from the panel's link, as a page and its JSON twin`, async t => {
    const app = await appOn(t, engine)
    const token = tokenOf(await postJson(app, LOOKUP, { code: 'ADV1001' }))
    const panel = await page(app, `/${token}?panel=db`)
    t.equal(panel.statusCode, 200)
    const href = `/_profiler/${token}/db/explain?statement=1`
    t.ok(panel.body.includes(`<a href="${href}" class="explain" id="explain-1">Explain</a>`), 'the SELECT has its Explain link')

    const json = await page(app, `/${token}/db/explain?statement=1`, true)
    t.equal(json.statusCode, 200, json.body)
    const answer = json.json()
    t.match(answer, {
      statement: 1,
      sql: `SELECT * FROM advisors WHERE code = ${engine.placeholder(1)}`,
      params: ['ADV1001'],
      engine: engine.name,
      command: engine.name === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'
    })
    const plan = (answer.plan as string[]).join('\n')
    // The primary key's index (SQLite's automatic one; PostgreSQL's, or a scan of a table this small).
    t.match(plan, engine.name === 'sqlite' ? /SEARCH advisors USING INDEX sqlite_autoindex_advisors_1 \(code=\?\)/ : /(Index Scan using advisors_pkey on advisors|Seq Scan on advisors)/, plan)
    t.notMatch(plan, /actual/i, 'no actual times or rows: never ANALYZE')

    const html = await page(app, `/${token}/db/explain?statement=1`)
    t.equal(html.statusCode, 200)
    t.equal(html.headers['content-type'], 'text/html; charset=utf-8')
    t.match(html.headers['content-security-policy'], /script-src 'none'|default-src 'none'/, 'the pages\' policy')
    const shown = /<pre tabindex="0" id="explain-plan">([\s\S]*?)<\/pre>/.exec(html.body)?.[1] ?? ''
    t.same(decoded(shown).trimEnd().split('\n'), answer.plan, 'the plan on the page, line for line')
    t.ok(html.body.includes(`href="/_profiler/${token}?panel=db&amp;type=request"`), 'a way back to the panel')
  })

  t.test(`${engine.name}: the plan of a SELECT that fails when run: planned, never run`, async t => {
    const app = await appOn(t, engine)
    const token = tokenOf(await app.inject('/test/never-run'))
    const db = (await page(app, `/${token}?panel=db`, true)).json().panels.db
    t.match(db.statements[0].error, engine.name === 'sqlite' ? /integer overflow/ : /division by zero/, 'running it fails')
    const res = await page(app, `/${token}/db/explain?statement=1`, true)
    t.equal(res.statusCode, 200, res.body)
    t.match(res.json().plan.join('\n'), /advisors/, 'its plan, which running it (or ANALYZE) could not have given')
  })

  t.test(`${engine.name}: markup in the SQL and the plan is escaped`, async t => {
    const app = await appOn(t, engine)
    const token = tokenOf(await app.inject('/test/markup'))
    const json = await page(app, `/${token}/db/explain?statement=1`, true)
    t.equal(json.statusCode, 200, json.body)
    if (engine.name === 'postgres') t.match(json.json().plan.join('\n'), '<b>x</b>', 'the literal is in the plan')
    const html = await page(app, `/${token}/db/explain?statement=1`)
    t.equal(html.statusCode, 200)
    t.notOk(html.body.includes('<b>x</b>'), 'no markup of the statement\'s own on the page')
    t.match(html.body, /&lt;b&gt;x&lt;\/b&gt;/)
  })

  t.test(`${engine.name}: a write, a redacted parameter and an unknown number are refused with the reason`, async t => {
    const app = await appOn(t, engine)
    // The status poll: SELECT, SELECT, UPDATE.
    const poll = tokenOf(await postJson(app, POLL, { code: 'ADV1003' }))
    const panel = await page(app, `/${poll}?panel=db`)
    t.ok(panel.body.includes('id="explain-2"'), 'a SELECT has the link')
    t.notOk(panel.body.includes('id="explain-3"'), 'the UPDATE has none')
    for (const json of [true, false]) {
      const update = await page(app, `/${poll}/db/explain?statement=3`, json)
      t.equal(update.statusCode, 422, `the UPDATE (${json ? 'JSON' : 'HTML'})`)
      t.match(update.body, 'This statement cannot be explained: only a SELECT is explained, and statement 3 is an UPDATE.')
    }
    const missing = await page(app, `/${poll}/db/explain?statement=4`, true)
    t.equal(missing.statusCode, 404)
    t.equal(missing.json().message, 'Statement 4 not found: this profile kept 3 statements.')
    for (const bad of ['', '?statement=0', '?statement=abc', '?statement=1&statement=2', '?statement=-1']) {
      const res = await page(app, `/${poll}/db/explain${bad}`, true)
      t.equal(res.statusCode, 400, `"${bad}"`)
      t.match(res.json().message, 'The "statement" parameter must be one statement\'s number on the page')
    }
    t.equal((await page(app, '/ffffff/db/explain?statement=1', true)).statusCode, 404, 'an unknown token')

    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlcw'
    const secret = tokenOf(await postJson(app, LOOKUP, { code: jwt }))
    const redactedPanel = await page(app, `/${secret}?panel=db`)
    t.notOk(redactedPanel.body.includes('id="explain-1"'), 'no link for a statement whose parameter was redacted')
    t.match(redactedPanel.body, /No Explain either/)
    const redacted = await page(app, `/${secret}/db/explain?statement=1`, true)
    t.equal(redacted.statusCode, 422)
    t.match(redacted.json().message, /cannot be explained: its SQL or a parameter was redacted/)
    t.notOk(redacted.body.includes('eyJhbGciOiJIUzI1NiJ9'), 'the secret is nowhere')
  })

  t.test(`${engine.name}: the table gone is a clear 422, not a 500`, async t => {
    const app = await appOn(t, engine)
    const token = tokenOf(await postJson(app, LOOKUP, { code: 'ADV1001' }))
    if (engine.name === 'sqlite') app.db.exec('DROP TABLE advisors')
    else await queryOn(String(app.config.databaseUrl), 'DROP TABLE advisors')
    const res = await page(app, `/${token}/db/explain?statement=1`, true)
    t.equal(res.statusCode, 422, res.body)
    t.match(res.json().message, engine.name === 'sqlite'
      ? 'This statement cannot be explained: SQLite could not plan it: no such table: advisors'
      : 'This statement cannot be explained: PostgreSQL could not plan it: relation "advisors" does not exist')
  })

  t.test(`${engine.name}: refused without the secret when the profiler has one`, async t => {
    const app = await appOn(t, engine, { PROFILER_SECRET: SECRET })
    const token = tokenOf(await postJson(app, LOOKUP, { code: 'ADV1001' }))
    await app.profileStore.flush()
    for (const accept of ['application/json', 'text/html']) {
      const anonymous = await app.inject({ url: `/_profiler/${token}/db/explain?statement=1`, headers: { accept } })
      t.equal(anonymous.statusCode, 401, accept)
      t.equal(anonymous.headers['www-authenticate'], 'Basic realm="Profiler", charset="UTF-8"')
      t.notMatch(anonymous.body, /advisors/, 'nothing of the statement or its plan')
      const wrong = await app.inject({ url: `/_profiler/${token}/db/explain?statement=1`, headers: { accept, authorization: basicAuth(`${SECRET}x`) } })
      t.equal(wrong.statusCode, 401)
    }
    const allowed = await page(app, `/${token}/db/explain?statement=1`, true)
    t.equal(allowed.statusCode, 200)
    t.equal(allowed.headers['cache-control'], 'no-store')
  })
}

t.test('a profile whose statements ran on the other engine (a shared store) is refused with the reason', async t => {
  const postgres = engines.find(engine => engine.name === 'postgres')
  if (postgres === undefined) return
  const env = await postgres.env(t)
  const onPostgres = await appOn(t, postgres, env)
  // Another deployment on the same profile store, its advisors on SQLite.
  const onSqlite = await buildTestApp(t, { PROFILER_DATABASE_URL: String(env.PROFILER_DATABASE_URL) })
  const token = tokenOf(await postJson(onPostgres, LOOKUP, { code: 'ADV1001' }))
  await onPostgres.profileStore.flush()
  const res = await page(onSqlite, `/${token}/db/explain?statement=1`, true)
  t.equal(res.statusCode, 422, res.body)
  t.equal(res.json().message, 'This statement cannot be explained: it ran on PostgreSQL, and this service\'s advisors\' database is on SQLite.')
})

t.test('sqlite: the advisors\' file gone is the database\'s 503, not a 500', async t => {
  const app = await buildTestApp(t)
  const token = tokenOf(await postJson(app, LOOKUP, { code: 'ADV1001' }))
  const path = app.config.databasePath
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  const res = await page(app, `/${token}/db/explain?statement=1`, true)
  t.equal(res.statusCode, 503)
  t.equal(res.json().message, 'The advisor database is unavailable at the moment; try again later')
})

t.test('without a secret, the rebinding guard applies to Explain as to every page', async t => {
  const app = await buildTestApp(t)
  const token = tokenOf(await postJson(app, LOOKUP, { code: 'ADV1001' }))
  await app.profileStore.flush()
  const res = await app.inject({ url: `/_profiler/${token}/db/explain?statement=1`, headers: { accept: 'application/json', host: 'attacker.example' } })
  t.equal(res.statusCode, 403, res.body)
})
