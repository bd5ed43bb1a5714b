// run-suite: shares a process
// Request targets (RFC 9112 §3.2) through a real socket, as an attacker sends them: only a path is
// glued onto the origin. Absolute-form is answered by its path, anything else that is not
// origin-form is a 400 that says so, profiled; every URL the service reports, stores and exports is
// scheme://host[:port]/path of this service. (app.inject cannot send such targets.)
import fc from 'fast-check'
import t from 'tap'
import { listProfiles } from '../helpers/profiler.js'
import { listeningApp } from '../helpers/app.js'
import { onOrigin, profileUrls } from '../helpers/exported-urls.js'
import { hostileText } from '../helpers/hostile.js'
import { rawAnswer } from '../helpers/raw-http.js'

const ORIGIN = 'http://localhost'
const NOT_ORIGIN_FORM = 'is not origin-form: this service answers only a path starting with "/" (or an absolute http(s) URL of this service)'

/** The request line and Host: localhost, no body, the connection closed after the answer. */
const request = (method: string, target: string, extra = ''): string =>
  `${method} ${target} HTTP/1.1\r\nHost: localhost\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`

t.test('POST *@127.0.0.2:18099/steal (Host localhost): a 400 that says so, stored and exported on localhost, with TRUSTED_HOSTS too', async t => {
  for (const env of [{}, { TRUSTED_HOSTS: 'localhost' }] as Array<Record<string, string>>) {
    const { app, address } = await listeningApp(t, env)
    const res = await rawAnswer(address, 'POST *@127.0.0.2:18099/steal HTTP/1.1\r\nHost: localhost\r\nX-Secret-Note: keep-me-here\r\n' +
      'Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}')
    t.equal(res.status, 400, `a 400 (${JSON.stringify(env)})`)
    t.equal(JSON.parse(res.body).message, `The request target "*@127.0.0.2:18099/steal" ${NOT_ORIGIN_FORM}`)
    const token = res.headers['x-debug-token']
    t.ok(token, 'profiled')
    t.equal(res.headers['x-debug-token-link'], `${ORIGIN}/_profiler/${token}`)
    const urls = await profileUrls(app, token ?? '')
    const url = `${ORIGIN}/*@127.0.0.2:18099/steal`
    t.same(urls, { stored: url, listed: url, curl: url, har: url }, 'the target is a path of this service everywhere')
    t.same([urls.curl, urls.har].map(exported => new URL(exported ?? '').host), ['localhost', 'localhost'], 'curl and a HAR player send it to localhost, not 127.0.0.2')
  }
})

t.test('absolute-form is answered by its path: 301 Location, messages, X-Debug-Token-Link, stored and exported URLs on this service', async t => {
  const { app, address } = await listeningApp(t)
  const redirect = await rawAnswer(address, request('GET', 'http://localhost/_profiler?a=1'))
  t.equal(redirect.status, 301)
  t.equal(redirect.headers.location, `${ORIGIN}/_profiler/?a=1`, 'not http://localhosthttp://localhost/_profiler/')
  t.equal(redirect.headers['x-debug-token-link'], `${ORIGIN}/_profiler/${redirect.headers['x-debug-token']}`)

  const missing = await rawAnswer(address, request('GET', 'HTTP://LocalHost:80/nope?x=1'))
  t.equal(missing.status, 404)
  t.equal(JSON.parse(missing.body).message, `No route found for "GET ${ORIGIN}/nope"`)

  const routed = await rawAnswer(address, request('POST', 'http://localhost/monitor/MonitorPooling'))
  t.equal(routed.status, 200, 'a route answers its absolute URL')

  const elsewhere = await rawAnswer(address, request('GET', 'http://evil.test/x'))
  t.equal(elsewhere.status, 400, 'another host than the Host header: a 400')
  t.equal(JSON.parse(elsewhere.body).message, 'The request target "http://evil.test/x" names the host "evil.test", but the Host header is "localhost"')
  t.equal(elsewhere.headers['x-debug-token-link'], `${ORIGIN}/_profiler/${elsewhere.headers['x-debug-token']}`)

  const userinfo = await rawAnswer(address, request('GET', 'http://localhost@127.0.0.2:18099/steal'))
  t.equal(userinfo.status, 400, 'user information before the host: a 400')
  t.equal(JSON.parse(userinfo.body).message, 'The request target "http://localhost@127.0.0.2:18099/steal" names an invalid host "localhost@127.0.0.2:18099"')

  const malformed = await rawAnswer(address, request('GET', 'http://localhost/x/%E0%A4%A'))
  t.equal(JSON.parse(malformed.body).message, "The request URL is not valid: '/x/%E0%A4%A' has a malformed percent-encoding")

  const expected: Array<[typeof redirect, string]> = [
    [redirect, '/_profiler?a=1'], [missing, '/nope?x=1'], [routed, '/monitor/MonitorPooling'],
    [elsewhere, '/x'], [userinfo, '/steal'], [malformed, '/x/%E0%A4%A']
  ]
  for (const [answer, path] of expected) {
    const url = `${ORIGIN}${path}`
    t.same(await profileUrls(app, answer.headers['x-debug-token'] ?? ''), { stored: url, listed: url, curl: url, har: url }, `stored and exported as ${url}`)
  }
})

t.test('OPTIONS * is a 400 that says so, stored as http://localhost/*; authority-form never reaches a stored URL', async t => {
  const { app, address } = await listeningApp(t)
  const star = await rawAnswer(address, request('OPTIONS', '*'))
  t.equal(star.status, 400)
  t.equal(JSON.parse(star.body).message, `The request target "*" ${NOT_ORIGIN_FORM}`)
  t.equal(star.headers['x-debug-token-link'], `${ORIGIN}/_profiler/${star.headers['x-debug-token']}`)
  const url = `${ORIGIN}/*`
  t.same(await profileUrls(app, star.headers['x-debug-token'] ?? ''), { stored: url, listed: url, curl: url, har: url }, 'not http://localhost*')
  // Node's HTTP parser refuses authority-form outside CONNECT before the app sees it: a 400, profiled
  // as the parser's rejection, on this service's origin.
  const authority = await rawAnswer(address, request('GET', 'evil.test:80'))
  t.equal(authority.status, 400)
  t.equal(authority.headers.location, undefined)
  t.notOk((await listProfiles(app)).some(profile => new URL(profile.url).hostname !== 'localhost'), 'every stored URL is on localhost')
  t.same(Object.values(await profileUrls(app, authority.headers['x-debug-token'] ?? '')).filter(url => !onOrigin(url, ORIGIN)), [], 'the rejection\'s URLs are on this service')
})

t.test('an HTTP/1.1 request without Host is a 400 that says so, profiled; an HTTP/1.0 one is reported as localhost', async t => {
  const { app, address } = await listeningApp(t)
  const res = await rawAnswer(address, 'GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n')
  t.equal(res.status, 400)
  t.equal(JSON.parse(res.body).message, 'The request has no Host header: HTTP/1.1 requires one.')
  t.equal(res.headers['x-debug-token-link'], `${ORIGIN}/_profiler/${res.headers['x-debug-token']}`, 'profiled')
  const old = await rawAnswer(address, 'GET /nope HTTP/1.0\r\n\r\n')
  t.equal(JSON.parse(old.body).message, `No route found for "GET ${ORIGIN}/nope"`)
  t.equal((await profileUrls(app, old.headers['x-debug-token'] ?? '')).stored, `${ORIGIN}/nope`)
})

/** The target shapes an attacker starts from, each followed by generated text. */
/** How the answer to a request Node's HTTP parser refused begins (plugins/rejected-requests). */
const PARSER_REJECTED = 'The HTTP parser rejected the request: '

const TARGET_STARTS = [
  '', '/', '//', '/\\', '*', '**', '*@', '*@127.0.0.2:18099', '@', '?', '#', 'http://', 'https://', 'HTTP://', 'ftp://',
  'http://localhost', 'http://localhost:80', 'https://localhost', 'http://LOCALHOST.', 'http://127.0.0.2:18099', 'http://evil.test',
  'http://localhost@evil.test', 'http://[::1]', 'evil.test:80', 'localhost:', 'javascript:'
]
const requestTarget = fc.tuple(
  fc.constantFrom(...TARGET_STARTS),
  fc.oneof(hostileText(20, 3), fc.webPath(), fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constant(''))
).map(([start, rest]) => `${start}${rest}`.replace(/[\r\n]/g, ''))

t.test('generated request targets: every Location, link, stored and exported URL is on this service, or the answer is a 400', async t => {
  for (const [env, seed] of [[{}, 2101], [{ TRUSTED_HOSTS: 'localhost' }, 2102]] as Array<[Record<string, string>, number]>) {
    const { app, address } = await listeningApp(t, env)
    const seen = { refusedByParser: 0, refusedProfiled: 0, answered: 0 }
    await fc.assert(fc.asyncProperty(requestTarget, fc.constantFrom('GET', 'POST', 'OPTIONS', 'DELETE', 'HEAD'), async (target, method) => {
      const res = await rawAnswer(address, request(method, target))
      if (res.status === 0 || res.status >= 500) return false
      seen[res.headers['x-debug-token'] === undefined ? 'refusedByParser' : res.status === 400 ? 'refusedProfiled' : 'answered']++
      // The service answers only a path or an absolute http(s) URL: anything else is a 400.
      if (res.status !== 400 && !/^(\/|https?:\/\/)/i.test(target)) return false
      const location = res.headers.location
      if (location !== undefined && !onOrigin(location, ORIGIN) && !/^\/(?![/\\])/.test(location)) return false
      const token = res.headers['x-debug-token']
      // Without a profile: Node's parser refused the bytes (a 400), or a profiler page answered (its successes are not recorded).
      if (token === undefined) return res.status === 400 || (res.status < 400 && /^(https?:\/\/[^/]*)?\/_profiler/i.test(target))
      if (res.headers['x-debug-token-link'] !== `${ORIGIN}/_profiler/${token}`) return false
      // The 400 of a target that is neither a path nor an absolute http(s) URL says so, or is the HTTP
      // parser's own rejection (HEAD answers carry no body).
      const message = method === 'HEAD' ? '' : JSON.parse(res.body).message as string
      if (!/^(\/|https?:\/\/)/i.test(target) && method !== 'HEAD' && !message.includes('is not origin-form') && !message.startsWith(PARSER_REJECTED)) return false
      const urls = await profileUrls(app, token)
      return Object.values(urls).every(url => onOrigin(url, ORIGIN))
    }), { numRuns: 80, seed })
    t.ok(seen.refusedProfiled > 0 && seen.answered > 0, `each kind of answer was tried (${JSON.stringify(seen)}, ${JSON.stringify(env)})`)
  }
})
