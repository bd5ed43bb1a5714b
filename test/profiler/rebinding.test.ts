// run-suite: shares a process
// DNS rebinding: a page from attacker.example, whose name is then pointed at 127.0.0.1, is
// same-origin with an open profiler in the developer's browser, but its requests still carry
// Host: attacker.example. Without PROFILER_SECRET the profiler answers only loopback names and
// TRUSTED_HOSTS; any other Host gets a 4xx that says why.
import fc from 'fast-check'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { basicAuth } from '../helpers/profiler.js'

const SECRET = 'correct-horse-battery-staple'
const pagesOf = (token: string): string[] =>
  ['/_profiler/empty/search/results?limit=5', `/_profiler/${token}`, `/_profiler/${token}/har`, `/_profiler/${token}/curl`, '/_profiler/stats']
const refusal = (name: string): string =>
  `The profiler has no PROFILER_SECRET, so it answers only loopback host names (localhost, 127.0.0.0/8, [::1]) and TRUSTED_HOSTS, not "${name}": set PROFILER_SECRET, or add the name to TRUSTED_HOSTS.`

t.test('without a secret, the profiler answers loopback names and TRUSTED_HOSTS only: any other Host is a 403 that says why, profiled; the business routes answer it; with a secret, any Host with the password', async t => {
  const app = await buildTestApp(t)
  const token = (await app.inject({ url: '/nope' })).headers['x-debug-token'] as string
  // Written before its pages are read: the writer stores a batch up to 50 ms later.
  await app.profileStore.flush()
  for (const host of ['localhost', 'localhost:3000', 'LOCALHOST.', 'app.localhost:8080', '127.0.0.1', '127.8.9.10:3000', '[::1]:3000']) {
    for (const url of pagesOf(token)) t.equal((await app.inject({ url, headers: { host } })).statusCode, 200, `${host} ${url}`)
  }
  for (const [host, name] of [['evil.test', 'evil.test'], ['Evil.Test:3000', 'evil.test'], ['192.168.1.20:3000', '192.168.1.20'], ['localhost.evil.test', 'localhost.evil.test'], ['127.0.0.1.evil.test', '127.0.0.1.evil.test'], ['[::2]', '[::2]']] as Array<[string, string]>) {
    for (const url of pagesOf(token)) {
      const res = await app.inject({ url, headers: { host, accept: 'application/json' } })
      t.equal(res.statusCode, 403, `${host} ${url}`)
      t.equal(res.json().message, refusal(name))
      t.ok(res.headers['x-debug-token'], 'profiled')
    }
  }
  t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { host: 'evil.test' } })).statusCode, 200, 'a business route answers any valid Host')
  await fc.assert(fc.asyncProperty(fc.domain().filter(name => !/(^|\.)localhost$/.test(name)), async host => {
    const res = await app.inject({ url: '/_profiler/empty/search/results?limit=1', headers: { host, accept: 'application/json' } })
    return res.statusCode === 403 && res.json().message === refusal(host.toLowerCase())
  }), { numRuns: 50, seed: 2301 })

  // TRUSTED_HOSTS adds its names (any other Host is a 400 everywhere); with a secret, the password is the guard.
  const trusted = await buildTestApp(t, { TRUSTED_HOSTS: 'app\\.example\\.test,localhost' })
  t.equal((await trusted.inject({ url: '/_profiler/empty/search/results', headers: { host: 'app.example.test:8080' } })).statusCode, 200, 'a trusted name')
  const untrusted = await trusted.inject({ url: '/_profiler/empty/search/results', headers: { host: 'evil.test' } })
  t.equal(untrusted.statusCode, 400)
  t.equal(untrusted.json().message, 'Untrusted Host "evil.test".')

  const locked = await buildTestApp(t, { PROFILER_SECRET: SECRET })
  const page = (host: string, authorization?: string) =>
    locked.inject({ url: '/_profiler/empty/search/results', headers: { host, ...(authorization === undefined ? {} : { authorization }) } })
  t.equal((await page('evil.test', basicAuth(SECRET))).statusCode, 200, 'the password is the guard')
  t.equal((await page('evil.test')).statusCode, 401)
})
