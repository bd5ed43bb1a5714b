// run-suite: shares a process
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { basicAuth } from '../helpers/profiler.js'
import { runNode } from '../helpers/run.js'
import { startServer } from '../helpers/server.js'

const SECRET = 'correct-horse-battery-staple'
const PAGES = ['/_profiler/', '/_profiler/empty/search/results?limit=10', '/_profiler/search?limit=10', '/_profiler/latest', '/_profiler/abcdef?panel=request']

t.test('production: no profiler at all unless PROFILER=on (the normal 404, no headers)', async t => {
  const app = await buildTestApp(t, { NODE_ENV: 'production' })
  const poll = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  t.equal(poll.statusCode, 200)
  t.equal(poll.headers['x-debug-token'], undefined)
  t.equal(poll.headers['x-debug-token-link'], undefined)
  for (const url of PAGES) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 404, url)
    t.equal(res.json().message, `No route found for "GET http://localhost${url.replace(/\?.*/, '')}"`, url)
  }
  const off = await buildTestApp(t, { PROFILER: 'off' })
  t.equal((await off.inject({ url: '/nope' })).headers['x-debug-token'], undefined, 'PROFILER=off in development too')
})

t.test('with a secret, every page and JSON answer needs HTTP Basic with that password', async t => {
  const environments: Array<Record<string, string>> = [{ NODE_ENV: 'production', PROFILER: 'on', PROFILER_SECRET: SECRET }, { PROFILER_SECRET: SECRET }]
  for (const env of environments) {
    const app = await buildTestApp(t, env)
    const recorded = await app.inject({ url: '/nope' })
    t.match(recorded.headers['x-debug-token'], /^[0-9a-f]{6}$/, `${env.NODE_ENV ?? 'development'}: requests are profiled`)
    for (const url of PAGES) {
      for (const accept of ['application/json', 'text/html']) {
        const anonymous = await app.inject({ url, headers: { accept } })
        t.equal(anonymous.statusCode, 401, `${url} (${accept}) without credentials`)
        t.equal(anonymous.headers['www-authenticate'], 'Basic realm="Profiler", charset="UTF-8"')
        t.match(anonymous.body, 'This page requires HTTP Basic authentication')
      }
      const wrong = await app.inject({ url, headers: { accept: 'application/json', authorization: basicAuth(`${SECRET}x`) } })
      t.equal(wrong.statusCode, 401, `${url} with a wrong password`)
      t.equal(wrong.json().message, 'Wrong password for the profiler')
      t.equal(wrong.headers['www-authenticate'], 'Basic realm="Profiler", charset="UTF-8"')
    }
    for (const query of [`secret=${SECRET}`, `password=${SECRET}`, `PROFILER_SECRET=${SECRET}`, `authorization=${encodeURIComponent(basicAuth(SECRET))}`]) {
      const res = await app.inject({ url: `/_profiler/latest?${query}` })
      t.equal(res.statusCode, 401, `not accepted in the query string: ${query.replace(/=.*/, '')}`)
    }
    await app.profileStore.flush()
    for (const user of ['', 'admin', 'anyone at all']) {
      const listing = await app.inject({ url: '/_profiler/empty/search/results?limit=100', headers: { accept: 'application/json', authorization: basicAuth(SECRET, user) } })
      t.equal(listing.statusCode, 200, `user name "${user}" is ignored`)
      const listed = listing.json().results as Array<{ token: string, status: number }>
      t.ok(listed.some(profile => profile.token === recorded.headers['x-debug-token']), 'the recorded request is listed')
      t.ok(listed.some(profile => profile.status === 401), 'refused attempts are recorded too')
    }
    const page = await app.inject({ url: '/_profiler/latest', headers: { authorization: basicAuth(SECRET) } })
    t.equal(page.statusCode, 200)
    t.match(page.body, '<h1>')
  }
})

t.test('profiler pages send a CSP that forbids every script, and no-sniff/frame headers', async t => {
  const app = await buildTestApp(t)
  await app.inject({ url: '/nope' })
  await app.profileStore.flush()
  for (const url of ['/_profiler/empty/search/results?limit=10', '/_profiler/latest', '/_profiler/latest?panel=nope']) {
    const res = await app.inject({ url })
    const csp = String(res.headers['content-security-policy'])
    t.match(csp, /(^|;)default-src 'none'(;|$)/, url)
    t.notMatch(csp, /script-src/, 'script falls back to default-src none')
    t.notMatch(csp, /unsafe-inline|unsafe-eval/)
    t.match(csp, /style-src 'sha256-[A-Za-z0-9+/]+=*'/, 'only the layout\'s own style block')
    t.match(csp, /frame-ancestors 'none'/)
    t.equal(res.headers['x-content-type-options'], 'nosniff')
  }
})

// The last two tests run child processes and mostly wait on them: side by side.
t.jobs = 2

t.test('production without PROFILER_SECRET refuses to start with one line naming it', { buffered: true }, async t => {
  const res = await runNode('server.js', [], { PORT: '0', NODE_ENV: 'production', PROFILER: 'on' })
  t.equal(res.code, 1)
  t.equal(res.stderr, 'Invalid environment: PROFILER_SECRET must be set (at least 16 characters) when PROFILER=on in production\n')
})

t.test('the start-up log says whether the profiler is on, where, and whether protected; the secret is never logged', { buffered: true }, async t => {
  // The line is the app's own (lib/logging.ts: profilerStatus, logged by buildApp): off and
  // unprotected read from apps built as server.js builds them; the protected case from a real
  // server's output, which the secret must never reach.
  const server = await startServer(t, { NODE_ENV: 'production', PROFILER: 'on', PROFILER_SECRET: SECRET })
  const off = await buildLoggedApp(t, { NODE_ENV: 'production' })
  t.equal(off.logLines(/Profiler: off \(production: PROFILER=on with PROFILER_SECRET enables it\)/).length, 1, 'off in production')
  const open = await buildLoggedApp(t)
  t.equal(open.logLines(/Profiler: on, store \S+profiler\.sqlite, pages NOT protected/).length, 1, 'on, unprotected, in development')

  t.match(server.log(), /Profiler: on, store \S+profiler\.sqlite, pages protected by HTTP Basic authentication/)
  const authorization = basicAuth(SECRET)
  const ok = await fetch(`${server.address}/_profiler/empty/search/results?limit=1`, { headers: { authorization } })
  t.equal(ok.status, 200)
  // A careless client puts it in the URL: refused, and the request log shows it redacted.
  const inQuery = await fetch(`${server.address}/_profiler/latest?secret=${SECRET}&x=${SECRET}`)
  t.equal(inQuery.status, 401)
  await fetch(`${server.address}/monitor/MonitorPooling?token=${SECRET}`, { method: 'POST', headers: { authorization } })
  t.equal(await server.stop(), 0)
  const log = server.log()
  t.match(log, /incoming request/, 'requests were logged')
  t.notOk(log.includes(SECRET), 'the secret is not in the log')
  t.notOk(log.includes(authorization.slice(6)), 'nor its Basic form')
})
