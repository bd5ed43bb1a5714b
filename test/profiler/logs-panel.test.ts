// run-suite: shares a process

// The logs panel on both store engines: what a request logged through request.log (Fastify's own
// lines included), captured at PROFILER_LOG_LEVEL whatever LOG_LEVEL prints, within its caps,
// redacted; the counts on the row, the min_level filter, the level links; the console unchanged.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildTestApp, postJson } from '../helpers/app.js'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { listProfiles, profileJson, profilerHtml, profilerPage, storeOnly } from '../helpers/profiler.js'
import { profiler } from '../helpers/profiler-cli.js'
import { storeEngines } from '../helpers/store-engines.js'

const engines = storeEngines(t)

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl'

/** Test-only routes that log (the business routes do not). */
function loggingRoutes (app: FastifyInstance): void {
  app.get('/test/logs', async request => {
    request.log.debug('a debug line')
    request.log.info({ code: 'ADV1001' }, 'looking up %s', 'the advisor')
    request.log.warn('a warning')
    request.log.error(new Error('it failed'))
    return { ok: true }
  })
  app.get<{ Querystring: { n: string, size: string } }>('/test/many', async request => {
    for (let i = 0; i < Number(request.query.n); i++) request.log.info(`line ${i} ${'x'.repeat(Number(request.query.size))}`)
    request.log.error('the last error')
    return { ok: true }
  })
  app.get('/test/fails', async request => {
    request.log.info('an info line')
    request.log.warn('a warning before failing')
    throw new Error('the lookup failed')
  })
  app.get('/test/warn', async request => {
    request.log.warn('only a warning')
    return { ok: true }
  })
  // The level the request's logger logs at (pino's own property), and one line at info.
  app.get('/test/level', async request => {
    request.log.info('an info line')
    return { level: request.log.level }
  })
  app.get('/test/route-level', { logLevel: 'error' }, async request => ({ level: request.log.level }))
  app.get('/test/secret', async request => {
    request.log.info({ password: 'hunter22', user: 'ann', nested: { apiKey: 'k-123456' } }, `signed in with ${JWT}`)
    return { ok: true }
  })
}

const tokenOf = (res: { headers: Record<string, unknown> }): string => res.headers['x-debug-token'] as string

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const { fresh } = engine

    t.test('every line at info and above, in order, with Fastify\'s own, though LOG_LEVEL=silent', async t => {
      const app = await buildTestApp(t, { ...await fresh(t), LOG_LEVEL: 'silent' }, loggingRoutes)
      const token = tokenOf(await app.inject({ url: '/test/logs' }))
      const { panels, warnings, errors } = await profileJson(app, token, '?panel=logs')
      const { lines, omitted } = panels.logs
      t.same(lines.map((line: { level: string, message: string }) => `${line.level} ${line.message}`), [
        'info incoming request',
        'info looking up the advisor',
        'warn a warning',
        'error it failed',
        'info request completed'
      ])
      t.equal(omitted, 0)
      t.same(lines[0].fields, { req: { method: 'GET', url: '/test/logs' } })
      t.same(lines[1].fields, { code: 'ADV1001' })
      t.match(lines[3].fields, { err: { type: 'Error', message: 'it failed', stack: /^Error: it failed\n/ } })
      t.match(lines[4].fields, { res: { statusCode: 200 }, responseTime: Number })
      const offsets = lines.map((line: { offsetMs: number }) => line.offsetMs)
      t.same(offsets, [...offsets].sort((a, b) => a - b), 'offsets grow')
      t.ok(offsets[0] >= 0)
      t.same({ warnings, errors }, { warnings: 1, errors: 1 }, 'the row counts them')
    })

    t.test('PROFILER_LOG_LEVEL=debug keeps debug lines; PROFILER_LOG_LEVEL=error only errors', async t => {
      const store = await fresh(t)
      const debug = await buildTestApp(t, { ...store, PROFILER_LOG_LEVEL: 'debug' }, loggingRoutes)
      const debugToken = tokenOf(await debug.inject({ url: '/test/logs' }))
      t.match((await profileJson(debug, debugToken)).panels.logs.lines[1], { level: 'debug', message: 'a debug line' })
      await debug.close()
      const errorsOnly = await buildTestApp(t, { ...store, PROFILER_LOG_LEVEL: 'error', LOG_LEVEL: 'info' }, loggingRoutes)
      const token = tokenOf(await errorsOnly.inject({ url: '/test/logs' }))
      const profile = await profileJson(errorsOnly, token)
      t.same(profile.panels.logs.lines.map((line: { message: string }) => line.message), ['it failed'])
      t.same({ warnings: profile.warnings, errors: profile.errors }, { warnings: 0, errors: 1 }, 'lines below the capture level are not counted')
    })

    t.test('a request the sample left out and a rule kept: only its warnings and errors, and the page says so', async t => {
      const secret = 'logs-keep-secret'
      const app = await buildTestApp(t, { ...await fresh(t), PROFILER_SAMPLE: '0', PROFILER_SECRET: secret }, loggingRoutes)
      const failed = await app.inject({ url: '/test/fails' })
      t.equal(failed.statusCode, 500, 'a server error: kept whatever the sample')
      const { panels, warnings, errors } = await profileJson(app, tokenOf(failed), '?panel=logs')
      const levels = panels.logs.lines.map((line: { level: string }) => line.level)
      t.ok(levels.length >= 2, 'its warning and error lines are there')
      t.ok(levels.every((level: string) => level === 'warn' || level === 'error'), `no line below warn (${levels.join(', ')})`)
      t.match(panels.logs.lines[0], { level: 'warn', message: 'a warning before failing' })
      t.equal(panels.logs.sampledOut, true)
      t.ok(warnings === 1 && errors >= 1, 'the row still counts its warnings and errors')
      t.match(await profilerHtml(app, `/${tokenOf(failed)}?panel=logs`), /id="logs-sampled-out">Only warnings and errors captured: the sample/)

      const forced = await app.inject({ url: '/test/fails', headers: { 'x-profiler-keep': secret } })
      const forcedLogs = (await profileJson(app, tokenOf(forced), '?panel=logs')).panels.logs
      t.match(forcedLogs.lines.map((line: { message: string }) => line.message), ['incoming request', 'an info line', 'a warning before failing'], 'a request asked for: every line')
      t.equal(forcedLogs.sampledOut, false)
      t.notMatch(await profilerHtml(app, `/${tokenOf(forced)}?panel=logs`), /logs-sampled-out/)
    })

    t.test('sampling: a request left out logs nothing below warn, a drawn one at PROFILER_LOG_LEVEL, the console as before', async t => {
      const secret = 'logs-level-secret'
      const store = await fresh(t)
      // The console silent: a request left out has a logger at warn, so Fastify's two info lines
      // (and any other) are pino's no-op for it instead of a call into the capture hook.
      const app = await buildTestApp(t, { ...store, PROFILER_SAMPLE: '0', PROFILER_SECRET: secret }, loggingRoutes)
      const leftOut = await app.inject({ url: '/test/level' })
      t.same(leftOut.json(), { level: 'warn' }, 'left out: warn')
      t.equal(leftOut.headers['x-debug-token'], undefined)
      const drawn = await app.inject({ url: '/test/level', headers: { 'x-profiler-keep': secret } })
      t.same(drawn.json(), { level: 'info' }, 'drawn (asked for): info, the capture level')
      t.same((await profileJson(app, tokenOf(drawn), '?panel=logs')).panels.logs.lines.map((line: { message: string }) => line.message),
        ['incoming request', 'an info line', 'request completed'], 'its info lines captured')
      const routeLevel = await app.inject({ url: '/test/route-level', headers: { 'x-profiler-keep': secret } })
      t.same(routeLevel.json(), { level: 'error' }, 'a route\'s own log level is kept, drawn or not')
      t.same((await profileJson(app, tokenOf(routeLevel), '?panel=logs')).panels.logs.lines, [],
        'a route logging from error on: Fastify\'s own info lines are not captured, as pino drops them')
      await app.close()

      // Every request drawn (PROFILER_SAMPLE=1): one level for all, no level set per request.
      const everyRequest = await buildTestApp(t, { ...store, PROFILER_SAMPLE: '1' }, loggingRoutes)
      t.same((await everyRequest.inject({ url: '/test/level' })).json(), { level: 'info' })
      await everyRequest.close()

      // The console at info: every request logs at info, left out or not, and the console prints its lines.
      const { app: logged, logLines } = await buildLoggedApp(t, { ...store, PROFILER_SAMPLE: '0' })
      t.equal((await postJson(logged, '/monitor/MonitorPooling', {})).statusCode, 200)
      t.ok(logLines(/"msg":"incoming request"/).length >= 1, 'the console still prints Fastify\'s lines of a request left out')
    })

    t.test('at most 100 lines and 16 KiB, the first ones, and the count of the rest', async t => {
      const app = await buildTestApp(t, await fresh(t), loggingRoutes)
      const many = await profileJson(app, tokenOf(await app.inject({ url: '/test/many?n=150&size=1' })))
      t.equal(many.panels.logs.lines.length, 100)
      t.equal(many.panels.logs.lines[99].message, 'line 98 x', 'the first lines (after "incoming request")')
      t.equal(many.panels.logs.omitted, 150 + 1 + 1 + 1 - 100, 'the rest counted: the lines, the error, "request completed"')
      t.equal(many.errors, 1, 'an error past the cap is still counted on the row')

      const big = await profileJson(app, tokenOf(await app.inject({ url: '/test/many?n=20&size=3000' })))
      const kept = big.panels.logs.lines
      t.equal(kept.length, 1 + 5, '"incoming request" and five lines of 3 KB fit in 16 KiB')
      t.equal(big.panels.logs.omitted, 20 - 5 + 2)
      t.ok(kept.reduce((sum: number, line: { message: string }) => sum + line.message.length, 0) <= 16 * 1024)
      t.equal(big.errors, 1)
    })

    t.test('a secret-named field and a JWT in a message are redacted before they are stored', async t => {
      const app = await buildTestApp(t, await fresh(t), loggingRoutes)
      const token = tokenOf(await app.inject({ url: '/test/secret' }))
      const line = (await profileJson(app, token)).panels.logs.lines[1]
      t.same(line, { offsetMs: line.offsetMs, level: 'info', message: 'signed in with [redacted]', fields: { password: '[redacted]', user: 'ann', nested: { apiKey: '[redacted]' } } })
      const page = await profilerPage(app, `/${token}?panel=logs`)
      t.notOk(/hunter22|k-123456|eyJhbGciOiJIUzI1NiJ9/.test(page.body), 'nothing in clear in the stored profile')
    })

    t.test('the row\'s counts in the listing and the min_level filter', async t => {
      const app = await buildTestApp(t, await fresh(t), loggingRoutes)
      const quiet = tokenOf(await app.inject({ url: '/test/secret' }))
      const logged = tokenOf(await app.inject({ url: '/test/logs' }))
      const errorOnly = tokenOf(await app.inject({ url: '/test/many?n=0&size=0' }))
      const warnOnly = tokenOf(await app.inject({ url: '/test/warn' }))
      const listed = await listProfiles(app)
      t.match(listed.find(row => row.token === quiet), { warnings: 0, errors: 0 })
      t.match(listed.find(row => row.token === logged), { warnings: 1, errors: 1 })
      t.match(listed.find(row => row.token === warnOnly), { warnings: 1, errors: 0 })
      t.same((await listProfiles(app, 'min_level=warn')).map(row => row.token), [warnOnly, errorOnly, logged])
      t.same((await listProfiles(app, 'min_level=error')).map(row => row.token), [errorOnly, logged])
      const invalid = await profilerPage(app, '/empty/search/results?min_level=info')
      t.equal(invalid.statusCode, 400)
      t.match(invalid.body, 'Invalid \\"min_level\\" parameter \\"info\\": expected \\"warn\\" or \\"error\\"')
    })

    t.test('the command line (show --panel logs, search --min-level) and MCP (get_profile, search_profiles, compare_profiles)', async t => {
      const env = await fresh(t)
      const app = await buildTestApp(t, env, loggingRoutes)
      const logged = tokenOf(await app.inject({ url: '/test/logs' }))
      const quiet = tokenOf(await app.inject({ url: '/test/secret' }))
      const page = await profileJson(app, logged, '?panel=logs')
      await app.close()

      const shown = await profiler(['show', logged, '--panel', 'logs', '--json'], env)
      t.same(JSON.parse(shown.stdout), storeOnly(page), 'show --json: the page\'s JSON (but what is kept: the service\'s settings)')
      const text = await profiler(['show', logged, '--panel', 'logs'], env)
      t.match(text.stdout, /\nLogs {6}1 warning\(s\), 1 error\(s\)\n/)
      t.match(text.stdout, /\n\[logs\]\n\{\n {2}"lines": \[/)
      const search = await profiler(['search', '--min-level', 'warn', '--json'], env)
      t.same(JSON.parse(search.stdout).results.map((row: { token: string }) => row.token), [logged])
      const bad = await profiler(['search', '--min-level', 'info'], env)
      t.equal(bad.stderr, 'profiler: Invalid "--min-level" parameter "info": expected "warn" or "error"\n')

      const client = await mcpClientInProcess(t, env)
      const detail = await json(client, 'get_profile', { token: logged, panels: ['logs'] })
      t.same(detail.panels, page.panels, 'get_profile: the page\'s panel')
      t.same((await json(client, 'search_profiles', { minLevel: 'error' })).results.map((row: { token: string }) => row.token), [logged])
      const compared = await json(client, 'compare_profiles', { a: quiet, b: logged })
      t.same(compared.logs, { warnings: { a: 0, b: 1, delta: 1 }, errors: { a: 0, b: 1, delta: 1 } })
    })

    t.test('the page: one table, "this level and above" as links, no script', async t => {
      const app = await buildTestApp(t, await fresh(t), loggingRoutes)
      const token = tokenOf(await app.inject({ url: '/test/logs' }))
      await app.profileStore.flush()
      const all = (await app.inject({ url: `/_profiler/${token}?panel=logs` })).body
      t.match(all, `<a href="/_profiler/${token}?panel=logs&amp;level=warn">warn and above (2)</a>`)
      t.match(all, '<strong>all (5)</strong>')
      t.equal(all.match(/<tr class="log-/g)?.length, 5)
      t.notMatch(all, /<script/)
      t.match(all, `<dt>Log warnings / errors</dt><dd><a href="/_profiler/${token}?panel=logs&amp;level=warn">1 / 1</a></dd>`)
      const warn = (await app.inject({ url: `/_profiler/${token}?panel=logs&level=warn` })).body
      t.match(warn, '<strong>warn and above (2)</strong>')
      t.match(warn, `<a href="/_profiler/${token}?panel=logs">all (5)</a>`)
      t.same([...warn.matchAll(/<tr class="log-(\w+)">/g)].map(match => match[1]), ['warn', 'error'])
      const error = (await app.inject({ url: `/_profiler/${token}?panel=logs&level=error` })).body
      t.same([...error.matchAll(/<tr class="log-(\w+)">/g)].map(match => match[1]), ['error'])
      const unknown = (await app.inject({ url: `/_profiler/${token}?panel=logs&level=nope` })).body
      t.equal(unknown.match(/<tr class="log-/g)?.length, 5, 'an unknown level shows every line')
    })
  })
}

t.test('the console prints exactly what it printed without the profiler, at the same LOG_LEVEL', async t => {
  /** The app's request lines at `env`, without what differs from run to run. */
  async function consoleLines (env: Record<string, string>): Promise<unknown[]> {
    const lines: string[] = []
    const app = await buildTestApp(t, env, loggingRoutes, { logStream: { write: line => { lines.push(line) } } })
    await app.inject({ url: '/test/logs' })
    await app.inject({ url: '/test/secret' })
    await app.close()
    return lines.map(line => JSON.parse(line) as Record<string, unknown>).filter(line => 'reqId' in line)
      .map(({ time: _time, pid: _pid, hostname: _hostname, responseTime: _responseTime, err, ...rest }) => ({ ...rest, err: err === undefined ? undefined : { ...err as object, stack: undefined } }))
  }
  for (const level of ['warn', 'info', 'silent']) {
    const without = await consoleLines({ LOG_LEVEL: level, PROFILER: 'off' })
    const withDebug = await consoleLines({ LOG_LEVEL: level, PROFILER: 'on', PROFILER_LOG_LEVEL: 'debug' })
    t.same(withDebug, without, `LOG_LEVEL=${level}`)
    t.ok(level === 'silent' ? without.length === 0 : without.length > 0)
  }
})
