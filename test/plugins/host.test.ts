// run-suite: shares a process
// The Host header: a host that is not a valid host[:port] is a 400 and never copied into an
// absolute URL, a header or a stored URL; hosts are lowercased; TRUSTED_HOSTS restricts them.
import fc from 'fast-check'
import t from 'tap'
import { INVALID_HOST, isValidHost } from '../../plugins/routing/host.js'
import { buildTestApp } from '../helpers/app.js'
import { listProfiles, profileJson } from '../helpers/profiler.js'
import { hostileText } from '../helpers/hostile.js'

t.test('an invalid Host is a 400 "Invalid Host", escaped in HTML, profiled under a placeholder host', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ url: '/robots.txt', headers: { host: '###' } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().message, 'Invalid Host "###".')
  t.equal(res.headers['x-debug-token-link'], `http://${INVALID_HOST}/_profiler/${String(res.headers['x-debug-token'])}`, 'the link carries the placeholder')
  const profile = await profileJson(app, res.headers['x-debug-token'] as string)
  t.equal(profile.url, `http://${INVALID_HOST}/robots.txt`, 'the stored URL says the host was invalid')
  const html = await app.inject({ url: '/', headers: { host: '<b>x</b>', accept: 'text/html' } })
  t.equal(html.statusCode, 400)
  t.match(html.body, 'Invalid Host &quot;&lt;b&gt;x&lt;/b&gt;&quot;.')
  t.notMatch(html.body, '<b>x</b>')
  const post = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', headers: { host: 'a b', 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' })
  t.equal(post.statusCode, 400, 'on a route too, before the handler')
  t.notOk((await listProfiles(app)).some(profile => /###|<b>|a b/.test(profile.url)), 'no stored URL holds the bad host')
})

t.test('hosts are lowercased in absolute URLs: messages, redirects, X-Debug-Token-Link, stored profiles', async t => {
  const app = await buildTestApp(t)
  const missing = await app.inject({ url: '/robots.txt', headers: { host: 'WWW.Example.TEST:8080' } })
  t.equal(missing.json().message, 'No route found for "GET http://www.example.test:8080/robots.txt"')
  t.match(missing.headers['x-debug-token-link'], /^http:\/\/www\.example\.test:8080\/_profiler\//)
  t.equal((await profileJson(app, missing.headers['x-debug-token'] as string)).url, 'http://www.example.test:8080/robots.txt')
  const redirect = await app.inject({ url: '/_profiler?a=1', headers: { host: 'API.Example.TEST' } })
  t.equal(redirect.statusCode, 301)
  t.match(redirect.headers.location ?? '', /^http:\/\/api\.example\.test\//)
})

t.test('TRUSTED_HOSTS: any other host is a 400 "Untrusted Host"', async t => {
  const app = await buildTestApp(t, { TRUSTED_HOSTS: 'localhost,(.+\\.)?example\\.test' })
  t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { host: 'API.example.test:8443' } })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200, 'localhost')
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { host: 'example.test.evil.test' } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().message, 'Untrusted Host "example.test.evil.test".')
  t.ok(res.headers['x-debug-token'], 'profiled')
})

t.test('Host validation on generated hosts: linear, never throws, a valid host is accepted as is', async t => {
  fc.assert(fc.property(hostileText(5000, 4), text => { isValidHost(text); return true }), { numRuns: 200, seed: 9201 })
  fc.assert(fc.property(fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 })), (domain, port) =>
    isValidHost(port === null ? domain : `${domain}:${port}`)), { numRuns: 200, seed: 9202 })
  const app = await buildTestApp(t)
  await fc.assert(fc.asyncProperty(hostileText(200, 3).filter(text => !isValidHost(text) && /^[\x21-\x7e]+$/.test(text)), async host => {
    const res = await app.inject({ url: '/x', headers: { host } })
    return res.statusCode === 400 && res.json().message === `Invalid Host "${host}".` && !String(res.headers['x-debug-token-link']).includes(host)
  }), { numRuns: 40, seed: 9203 })
})
