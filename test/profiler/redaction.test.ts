// run-suite: shares a process
import { existsSync } from 'node:fs'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { profileJson } from '../helpers/profiler.js'
import { sqliteStoreContents } from '../helpers/sqlite-panels.js'

// A JWT (header {"alg":"HS256","typ":"JWT"}), Luhn-valid card numbers, and plain secrets.
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlLXNlY3JldC1ieXRlcw'
const VISA = '4111111111111111'
const MASTERCARD_SPACED = '5555 5555 5555 4444'
const AMEX_DASHED = '3782-822463-10005'

t.test('secret headers, built-in and PROFILER_REDACT_HEADERS, are [redacted]', async t => {
  const app = await buildTestApp(t, { PROFILER_REDACT_HEADERS: 'X-Tenant-Key' }, app => {
    app.get('/test/headers', async (_request, reply) => reply.header('set-cookie', 'sid=resp-cookie-value').send({ ok: true }))
  })
  const headers = {
    authorization: 'Basic dXNlcjpwYXNz',
    'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
    cookie: 'sid=cookie-value',
    'x-api-key': 'api-key-value',
    'x-auth-token': 'auth-token-value',
    'x-tenant-key': 'tenant-key-value',
    'x-request-id': 'kept-as-is'
  }
  const res = await app.inject({ url: '/test/headers', headers })
  const panel = (await profileJson(app, tokenOf(res), '?panel=request')).panels.request
  for (const name of ['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'x-auth-token', 'x-tenant-key']) {
    t.equal(panel.requestHeaders[name], '[redacted]', name)
  }
  t.equal(panel.requestHeaders['x-request-id'], 'kept-as-is')
  t.equal(panel.response.headers['set-cookie'], '[redacted]')
})

t.test('secret-named fields at any depth and in arrays; PROFILER_REDACT_FIELDS adds names', async t => {
  const app = await buildTestApp(t, { PROFILER_REDACT_FIELDS: 'iban' }, app => {
    app.post('/test/echo', async () => ({ ok: true, session: { accessToken: 'response-token-value' } }))
  })
  const body = {
    user: 'ann',
    author: 'Victor Hugo',
    Password: 'p1',
    profile: { newPassword: 'p2', apiKey: 'p3', 'api key': 'p4', API_KEY: 'p5', auth: 'p6', credentials: { user: 'x' } },
    list: [{ clientSecret: 'p7' }, { refresh_token: 'p8' }, { customerIBAN: 'FR7630006000011234567890189' }],
    Authorization: 'p9'
  }
  const res = await app.inject({ method: 'POST', url: '/test/echo?user=ann&access_token=p10&Secret=p11', headers: { 'content-type': 'application/json' }, payload: body })
  const panel = (await profileJson(app, tokenOf(res), '?panel=request')).panels.request
  t.same(panel.body, {
    user: 'ann',
    author: 'Victor Hugo',
    Password: '[redacted]',
    profile: { newPassword: '[redacted]', apiKey: '[redacted]', 'api key': '[redacted]', API_KEY: '[redacted]', auth: '[redacted]', credentials: '[redacted]' },
    list: [{ clientSecret: '[redacted]' }, { refresh_token: '[redacted]' }, { customerIBAN: '[redacted]' }],
    Authorization: '[redacted]'
  })
  t.same(panel.query, { user: 'ann', access_token: '[redacted]', Secret: '[redacted]' })
  t.same(panel.response.body, { ok: true, session: { accessToken: '[redacted]' } })

  const form = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'user=ann&password=form-pass' })
  t.same((await profileJson(app, tokenOf(form), '?panel=request')).panels.request.body, { user: 'ann', password: '[redacted]' })
})

t.test('JWTs, Bearer credentials and card numbers are redacted wherever they appear', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.post('/test/echo', async request => ({ echoed: request.body }))
    app.get('/test/fail', async () => { throw new Error(`upstream refused Bearer abc.def-ghi_jkl for card ${VISA}`) })
  })
  const body = {
    note: `use ${JWT} then`,
    header: 'Bearer opaque-access-value-123',
    card: VISA,
    spaced: MASTERCARD_SPACED,
    dashed: AMEX_DASHED,
    asNumber: 4111111111111111,
    order: '4111111111111112',
    when: 1763769600123,
    isbn: '978-2-07-036822-8'
  }
  const res = await app.inject({ method: 'POST', url: `/test/echo?ref=${JWT}&pan=${encodeURIComponent(MASTERCARD_SPACED)}`, headers: { 'content-type': 'application/json', referer: `http://shop.example/pay?card=${VISA}` }, payload: body })
  const profile = await profileJson(app, tokenOf(res), '?panel=request')
  const panel = profile.panels.request
  t.same(panel.body, {
    note: 'use [redacted] then',
    header: 'Bearer [redacted]',
    card: '[redacted]',
    spaced: '[redacted]',
    dashed: '[redacted]',
    asNumber: '[redacted]',
    order: '4111111111111112',
    when: 1763769600123,
    isbn: '978-2-07-036822-8'
  }, 'not Luhn-valid, a timestamp, an ISBN: kept')
  t.equal(profile.url, 'http://localhost/test/echo?ref=%5Bredacted%5D&pan=%5Bredacted%5D')
  t.equal(panel.requestHeaders.referer, 'http://shop.example/pay?card=%5Bredacted%5D')
  t.same(panel.response.body.echoed.card, '[redacted]', 'the response body too')

  const failed = await app.inject({ url: '/test/fail' })
  const exception = (await profileJson(app, tokenOf(failed), '?panel=exception')).panels.exception
  t.equal(exception.message, 'upstream refused Bearer [redacted] for card [redacted]')
  t.notMatch(exception.chain[0].stack, /4111|abc\.def/, 'the stack trace too')
})

t.test('a secret in a routing-error message or a malformed body is not kept either', async t => {
  const app = await buildTestApp(t)
  const missing = await app.inject({ url: '/nope?password=hunter2&page=2', headers: { referer: 'http://shop.example/login?token=tok-123&next=/' } })
  t.equal(missing.json().message, 'No route found for "GET http://localhost/nope" (from "http://shop.example/login?token=tok-123&next=/")', 'the client sees its own referer')
  const profile = await profileJson(app, tokenOf(missing))
  t.equal(profile.url, 'http://localhost/nope?password=%5Bredacted%5D&page=2')
  const redactedMessage = 'No route found for "GET http://localhost/nope" (from "http://shop.example/login?token=%5Bredacted%5D&next=/")'
  t.equal(profile.panels.exception.message, redactedMessage)
  t.equal(profile.panels.request.response.body.message, redactedMessage)
  t.notOk(JSON.stringify(profile).includes('tok-123'))
  const bad = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{"password": hunter2}' })
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().message, 'Request body is not valid JSON (line 1, column 14): expected a value, found \'h\'')
  const stored = JSON.stringify(await profileJson(app, tokenOf(bad)))
  t.notOk(stored.includes('hunter2'))
})

t.test('the raw bytes of the store file and its WAL hold none of the secrets sent', async t => {
  const app = await buildTestApp(t)
  const secrets = ['hdr-secret-1', 'cookie-secret-2', 'body-pass-3', 'query-key-4', 'nested-token-5', VISA, JWT.split('.')[2] ?? JWT]
  await app.inject({
    method: 'POST',
    url: `/ccenter/getConseillerByCode?api_key=${secrets[3]}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secrets[0]}`, cookie: `sid=${secrets[1]}` },
    payload: { code: 'ADV1001', password: secrets[2], deep: { list: [{ token: secrets[4] }] }, card: VISA, jwt: JWT }
  })
  await app.inject({ url: `/unknown/${VISA}?password=${secrets[2]}`, headers: { referer: `http://x/?token=${secrets[4]}` } })
  await app.profileStore.flush()
  const path = app.config.profilerDatabasePath
  const scan = (when: string): void => {
    const contents = sqliteStoreContents(path)
    t.ok(contents.length >= 2, `${when}: ${contents.length - 1} file(s) scanned, and the panels decoded`)
    for (const { where, bytes } of contents) {
      for (const secret of secrets) t.equal(bytes.indexOf(secret), -1, `${when}: ${secret.slice(0, 12)}… not in ${where}`)
    }
  }
  scan('before close')
  t.ok(existsSync(`${path}-wal`), 'the WAL was there to scan')
  await app.close()
  scan('after close')
})
