// run-suite: shares a process
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { buildApp } from '../../app.js'
import { buildTestApp, testConfig } from '../helpers/app.js'
import { listProfiles, profileJson } from '../helpers/profiler.js'
import { sqlitePanels, sqlitePanelsOf } from '../helpers/sqlite-panels.js'

t.test('every answered request is recorded, whatever its status, with debug-token headers', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/boom', async () => { throw new Error('boom') })
  })
  const requests = [
    { status: 200, request: { method: 'POST' as const, url: '/monitor/MonitorPooling' } },
    { status: 301, request: { method: 'GET' as const, url: '/_profiler' } },
    { status: 400, request: { method: 'POST' as const, url: '/ccenter/getConseillerByCode', headers: { 'content-type': 'application/json' }, payload: '{oops' } },
    { status: 404, request: { method: 'GET' as const, url: '/robots.txt?x=1' } },
    { status: 405, request: { method: 'GET' as const, url: '/monitor/MonitorPooling' } },
    { status: 413, request: { method: 'POST' as const, url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: `{"a":"${'x'.repeat(1024 * 1024)}"}` } },
    { status: 415, request: { method: 'POST' as const, url: '/monitor/MonitorPooling', headers: { 'content-type': 'text/plain' }, payload: 'x' } },
    { status: 500, request: { method: 'GET' as const, url: '/test/boom' } }
  ]
  const tokens: string[] = []
  for (const { status, request } of requests) {
    const res = await app.inject({ ...request, headers: { host: 'api.example.test:8000', ...request.headers } })
    t.equal(res.statusCode, status, request.url)
    const token = res.headers['x-debug-token'] as string
    t.match(token, /^[0-9a-f]{6}$/, 'X-Debug-Token is 6 lowercase hex characters')
    t.equal(res.headers['x-debug-token-link'], `http://api.example.test:8000/_profiler/${token}`)
    tokens.push(token)
  }
  t.equal(new Set(tokens).size, tokens.length, 'tokens are unique')
  const listed = await listProfiles(app)
  t.same(listed.map(p => p.token), [...tokens].reverse(), 'newest first, one profile each')
  t.same(listed.map(p => p.status), requests.map(r => r.status).reverse())
  const notFound = listed.find(p => p.status === 404)
  t.match(notFound, { method: 'GET', url: 'http://api.example.test:8000/robots.txt?x=1', ip: '127.0.0.1' })
  t.ok(Math.abs(Date.parse(notFound?.time ?? '') - Date.now()) < 10_000, 'time is the request start')
  t.type(notFound?.durationMs, 'number')
})

t.test('a profile opened as soon as its answer came (still queued) is found, on the page, its JSON twin and a panel; an unknown token still 404s', async t => {
  // A flush delay far longer than the test: the profile is still queued when its page is asked for.
  const app = await buildTestApp(t, {}, undefined, { profiler: { store: { flushDelayMs: 600_000 } } })
  const token = (await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).headers['x-debug-token'] as string
  t.equal(app.profileStore.queuedBytes > 0, true, 'the profile is still queued')
  const page = await app.inject({ url: `/_profiler/${token}` })
  t.equal(page.statusCode, 200, 'the page')
  t.match(page.body, token)
  const json = await app.inject({ url: `/_profiler/${token}?panel=db`, headers: { accept: 'application/json' } })
  t.equal(json.statusCode, 200, 'the JSON twin')
  t.equal(JSON.parse(json.body).token, token)
  t.equal((await app.inject({ url: '/_profiler/abcdef' })).statusCode, 404, 'a token never issued')
})

t.test("the profiler's own pages are not recorded, except when they answer an error", async t => {
  const app = await buildTestApp(t)
  const first = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  const token = first.headers['x-debug-token'] as string
  await app.profileStore.flush()
  for (const url of ['/_profiler/', '/_profiler/search?limit=10', '/_profiler/empty/search/results?limit=10', `/_profiler/${token}`, '/_profiler/latest?panel=router']) {
    const res = await app.inject({ url })
    t.equal(res.headers['x-debug-token'], undefined, url)
  }
  const failures = []
  for (const url of ['/_profiler/abcdef', '/_profiler/search?limit=abc']) {
    const res = await app.inject({ url })
    t.ok(res.statusCode >= 400, `${url}: ${res.statusCode}`)
    failures.unshift({ token: res.headers['x-debug-token'], status: res.statusCode })
  }
  t.match(await listProfiles(app), [...failures, { token, status: 200 }])
})

t.test('client IP: IPv4-mapped IPv6 is shown as IPv4; X-Forwarded-For only with TRUST_PROXY', async t => {
  const app = await buildTestApp(t)
  await app.inject({ url: '/nope', remoteAddress: '::ffff:10.1.2.3' })
  await app.inject({ url: '/nope', remoteAddress: '::1' })
  await app.inject({ url: '/nope', remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': '203.0.113.7' } })
  t.same((await listProfiles(app)).map(p => p.ip), ['10.9.9.9', '::1', '10.1.2.3'])
  const proxied = await buildTestApp(t, { TRUST_PROXY: 'on' })
  await proxied.inject({ url: '/nope', remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': '203.0.113.7' } })
  t.equal((await listProfiles(proxied))[0]?.ip, '203.0.113.7')
})

t.test('a token collision picks another token; a stored profile is never overwritten', async t => {
  const sequence = ['aaaaaa', 'aaaaaa', 'bbbbbb', 'aaaaaa', 'bbbbbb', 'cccccc']
  const app = await buildApp(testConfig(t), { profiler: { tokenSource: () => sequence.shift() ?? 'ffffff' } })
  t.teardown(() => app.close())
  const first = await app.inject({ url: '/one' })
  const second = await app.inject({ url: '/two' }) // aaaaaa is queued: picks bbbbbb
  await app.profileStore.flush()
  const third = await app.inject({ url: '/three' }) // both stored: picks cccccc
  t.same([first, second, third].map(res => res.headers['x-debug-token']), ['aaaaaa', 'bbbbbb', 'cccccc'])
  const profiles = await listProfiles(app)
  t.same(profiles.map(p => [p.token, p.url]), [['cccccc', 'http://localhost/three'], ['bbbbbb', 'http://localhost/two'], ['aaaaaa', 'http://localhost/one']])
})

t.test('secrets never reach the store in clear', async t => {
  const config = testConfig(t)
  const app = await buildApp(config)
  app.get('/test/login', async (_request, reply) => {
    reply.header('set-cookie', 'session=s3cr3t-cookie; HttpOnly')
    return { ok: true, accessToken: 'resp-token-value' }
  })
  app.post('/test/login', async () => ({ ok: true }))
  const res = await app.inject({
    method: 'POST',
    url: '/test/login?user=ann&api_key=query-secret',
    headers: { authorization: 'Bearer header-secret', cookie: 'sid=cookie-secret', 'content-type': 'application/json' },
    payload: JSON.stringify({ user: 'ann', password: 'hunter2-secret', nested: { clientSecret: 'nested-secret' } })
  })
  await app.inject({ url: '/test/login' })
  const token = res.headers['x-debug-token'] as string
  const profile = await profileJson(app, token, '?panel=request')
  const request = profile.panels.request
  t.equal(request.requestHeaders.authorization, '[redacted]')
  t.equal(request.requestHeaders.cookie, '[redacted]')
  t.same(request.body, { user: 'ann', password: '[redacted]', nested: { clientSecret: '[redacted]' } })
  t.same(request.query, { user: 'ann', api_key: '[redacted]' })
  t.equal(profile.url, 'http://localhost/test/login?user=ann&api_key=%5Bredacted%5D')
  await app.close()
  const db = new BetterSqlite3(config.profilerDatabasePath, { readonly: true })
  t.teardown(() => db.close())
  const everything = JSON.stringify([db.prepare('SELECT * FROM profiles').all(), sqlitePanels(db)])
  for (const secret of ['header-secret', 'cookie-secret', 'hunter2-secret', 'nested-secret', 'query-secret', 's3cr3t-cookie', 'resp-token-value']) {
    t.notOk(everything.includes(secret), `${secret} is not stored`)
  }
  t.ok(everything.includes('[redacted]'))
})

t.test('app.close() writes every queued profile (no profile lost on a clean stop)', async t => {
  const config = testConfig(t)
  const app = await buildApp(config, { profiler: { store: { flushDelayMs: 60_000, batchSize: 10_000 } } })
  for (let i = 0; i < 25; i++) await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  const db = new BetterSqlite3(config.profilerDatabasePath, { readonly: true })
  t.teardown(() => db.close())
  t.equal((db.prepare('SELECT count(*) AS n FROM profiles').get() as { n: number }).n, 0, 'nothing written on the request path')
  await app.close()
  t.equal((db.prepare('SELECT count(*) AS n FROM profiles').get() as { n: number }).n, 25)
})

t.test('the profiles table is readable with plain SQL', async t => {
  const config = testConfig(t)
  const app = await buildApp(config)
  await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode?x=1', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' })
  await app.inject({ url: '/robots.txt' })
  await app.close()
  const db = new BetterSqlite3(config.profilerDatabasePath, { readonly: true })
  t.teardown(() => db.close())
  const rows = db.prepare('SELECT token, parent_token, type, ip, method, url, status_code, time, duration_ms, route FROM profiles ORDER BY id').all() as Array<Record<string, unknown>>
  t.match(rows, [
    { parent_token: null, type: 'request', ip: '127.0.0.1', method: 'POST', url: 'http://localhost/ccenter/getConseillerByCode?x=1', status_code: 200, route: '/ccenter/getConseillerByCode' },
    { type: 'request', method: 'GET', url: 'http://localhost/robots.txt', status_code: 404, route: null }
  ])
  t.match(rows[0]?.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  const missing = db.prepare('SELECT token FROM profiles WHERE status_code = 404').pluck().get() as string
  t.same(sqlitePanelsOf(db, missing)?.exception.chain[1].message, 'No routes found for "/robots.txt/".')
})

t.test('a full write queue drops profiles (counted), never the request', async t => {
  const tight = await buildApp(testConfig(t), { profiler: { store: { maxQueue: 2, flushDelayMs: 60_000, batchSize: 100 } } })
  t.teardown(() => tight.close())
  for (let i = 0; i < 5; i++) t.equal((await tight.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200)
  t.equal(tight.profileStore.dropped, 3)
  const listed = await listProfiles(tight)
  t.equal(listed.length, 2)
  await tight.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  const latest = await profileJson(tight, 'latest', '?panel=performance')
  t.equal(latest.panels.performance.droppedProfiles, 3, 'the performance panel shows the drop count')
})
