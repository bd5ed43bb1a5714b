// run-suite: shares a process
// Failed /_profiler logins are limited per client IP: past 10 wrong passwords in the window every
// attempt is a 429 with Retry-After (profiled), until the window has passed.
import t from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { basicAuth, listProfiles } from '../helpers/profiler.js'
import { untilClock } from '../helpers/wait-for.js'

const SECRET = 'correct-horse-battery-staple'
const PAGE = '/_profiler/empty/search/results'

t.test('10 wrong passwords, then 429 with Retry-After for every attempt until the window has passed', async t => {
  // Long enough for the 14 attempts below to fall in one window on a loaded machine (each one is
  // authenticated, rendered and profiled, under coverage).
  const windowMs = 4000
  const app = await buildApp(testConfig(t, { PROFILER_SECRET: SECRET }), { profiler: { loginRateLimit: { maxFailures: 10, windowMs } } })
  t.teardown(() => app.close())
  const attempt = (password: string, remoteAddress = '10.0.0.1') =>
    app.inject({ url: PAGE, remoteAddress, headers: { accept: 'application/json', authorization: basicAuth(password) } })

  for (let i = 0; i < 20; i++) t.equal((await attempt(SECRET)).statusCode, 200, 'successful page views are never limited')
  // The window is the limiter's fixed one, counted from the first failure.
  const firstFailureAt = Date.now()
  for (let i = 0; i < 10; i++) t.equal((await attempt(`wrong-${i}`)).statusCode, 401, `failure ${i + 1}: 401`)
  const limited = await attempt('wrong-10')
  t.equal(limited.statusCode, 429)
  t.match(limited.json().message, /^Too many failed logins from this address: try again in \d+ s$/)
  t.match(limited.headers['retry-after'], /^[1-4]$/)
  t.ok(limited.headers['x-debug-token'], 'the 429 is profiled')
  t.equal((await attempt(SECRET)).statusCode, 429, 'the right secret too, while the window lasts')
  t.equal((await attempt('wrong', '10.0.0.2')).statusCode, 401, 'per client IP')
  t.equal((await app.inject({ url: PAGE, remoteAddress: '10.0.0.1' })).statusCode, 429, 'no credentials either')

  await untilClock(firstFailureAt + windowMs + 500)
  t.equal((await attempt(SECRET)).statusCode, 200, 'the right secret works again after the window')
  const statuses = (await listProfiles(app)).map(profile => profile.status)
  t.ok(statuses.filter(status => status === 429).length >= 3, 'the refused attempts are in the listing')
})

t.test('the default: 10 failures a minute', async t => {
  const app = await buildApp(testConfig(t, { PROFILER_SECRET: SECRET }))
  t.teardown(() => app.close())
  for (let i = 0; i < 10; i++) await app.inject({ url: PAGE, headers: { authorization: basicAuth('nope') } })
  const res = await app.inject({ url: PAGE, headers: { authorization: basicAuth(SECRET) } })
  t.equal(res.statusCode, 429)
  t.ok(Number(res.headers['retry-after']) > 50 && Number(res.headers['retry-after']) <= 60, `Retry-After ${String(res.headers['retry-after'])} s`)
})

t.test('the throttle counts an address the client cannot choose: rotating X-Forwarded-For escapes it under no TRUST_PROXY form', async t => {
  const build = async (trustProxy: string) => {
    const app = await buildApp(testConfig(t, { PROFILER_SECRET: SECRET, TRUST_PROXY: trustProxy }), { profiler: { loginRateLimit: { maxFailures: 3, windowMs: 60_000 } } })
    t.teardown(() => app.close())
    return (remoteAddress: string, forwardedFor: string) =>
      app.inject({ url: PAGE, remoteAddress, headers: { accept: 'application/json', authorization: basicAuth('wrong'), 'x-forwarded-for': forwardedFor } })
  }
  // on (every X-Forwarded-For entry believed) and a hop count (whoever connects is believed): the connection's address.
  for (const trustProxy of ['on', '1']) {
    const attempt = await build(trustProxy)
    for (let i = 0; i < 3; i++) t.equal((await attempt('10.0.0.1', `198.51.100.${i}`)).statusCode, 401, `TRUST_PROXY=${trustProxy}: failure ${i + 1}`)
    t.equal((await attempt('10.0.0.1', '198.51.100.99')).statusCode, 429, `TRUST_PROXY=${trustProxy}: a new X-Forwarded-For is the same client`)
  }
  // A list of proxies: the address the nearest listed proxy wrote; a client that is not a listed proxy by its own.
  const attempt = await build('10.0.0.9')
  for (let i = 0; i < 3; i++) t.equal((await attempt('10.0.0.9', `spoofed-${i}, 203.0.113.1`)).statusCode, 401, `through the proxy: failure ${i + 1}`)
  t.equal((await attempt('10.0.0.9', 'spoofed-9, 203.0.113.1')).statusCode, 429, 'the client the proxy named, whatever it wrote before')
  t.equal((await attempt('10.0.0.9', '203.0.113.2')).statusCode, 401, 'another client of the proxy is counted apart')
  for (let i = 0; i < 3; i++) t.equal((await attempt('10.0.0.1', `198.51.100.${i}`)).statusCode, 401, `directly: failure ${i + 1}`)
  t.equal((await attempt('10.0.0.1', '198.51.100.99')).statusCode, 429, 'directly, a new X-Forwarded-For is the same client')
})
