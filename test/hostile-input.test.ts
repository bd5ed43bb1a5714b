// run-suite: shares a process
// Hostile and malformed requests: each gets a clear 4xx, the service stays up, and the request
// is in the profile store (the profiler's own pages are recorded when they answer an error).
import t from 'tap'
import type { InjectOptions } from 'fastify'
import { buildTestApp } from './helpers/app.js'
import { profileJson } from './helpers/profiler.js'

interface Case { name: string, request: InjectOptions, status: number, message: RegExp }

const json = { 'content-type': 'application/json' }
const LOOKUP = '/ccenter/getConseillerByCode'
const deep = (levels: number): string => `{"code":"ADV1001","x":${'['.repeat(levels)}${']'.repeat(levels)}}`

const CASES: Case[] = [
  { name: 'malformed JSON', request: { method: 'POST', url: LOOKUP, headers: json, payload: '{"code": "ADV1001",' }, status: 400, message: /not valid JSON \(line 1, column 20\)/ },
  { name: 'JSON nested 20,000 levels deep', request: { method: 'POST', url: LOOKUP, headers: json, payload: deep(20_000) }, status: 400, message: /deeper than 64 levels/ },
  { name: 'a 3 MB body', request: { method: 'POST', url: LOOKUP, headers: json, payload: `{"code":"${'x'.repeat(3 * 1024 * 1024)}"}` }, status: 413, message: /larger than the 1 MiB limit/ },
  { name: 'a wrong content type', request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'text/xml' }, payload: '<code>ADV1001</code>' }, status: 415, message: /Unsupported Content-Type "text\/xml"/ },
  { name: 'invalid UTF-8', request: { method: 'POST', url: LOOKUP, headers: json, payload: Buffer.from([0x7b, 0x22, 0x63, 0x6f, 0x64, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]) }, status: 400, message: /not valid UTF-8/ },
  { name: '__proto__ key (JSON)', request: { method: 'POST', url: LOOKUP, headers: json, payload: '{"code":"ADV1001","__proto__":{"isAdmin":true}}' }, status: 400, message: /forbidden key/ },
  { name: '__proto__ key (form)', request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'code=ADV1001&__proto__=x' }, status: 400, message: /forbidden key/ },
  { name: 'constructor.prototype', request: { method: 'POST', url: LOOKUP, headers: json, payload: '{"code":"ADV1001","constructor":{"prototype":{"x":1}}}' }, status: 400, message: /forbidden key/ },
  { name: 'an object where a string is expected', request: { method: 'POST', url: LOOKUP, headers: json, payload: '{"code":{"$ne":null}}' }, status: 400, message: /body\/code must be string/ },
  { name: 'a URL of 9,000 characters', request: { method: 'GET', url: `/ccenter/${'a'.repeat(9000)}` }, status: 404, message: /No route found for "GET http:\/\/localhost\/ccenter\/a{9000}"/ },
  { name: 'a query of 9,000 characters on the status poll', request: { method: 'POST', url: `/monitor/MonitorPooling/?q=${'b'.repeat(9000)}` }, status: 404, message: /No route found/ },
  { name: 'path traversal in a token', request: { method: 'GET', url: '/_profiler/..%2F..%2Fetc%2Fpasswd' }, status: 404, message: /Token "\.\.\/\.\.\/etc\/passwd" not found/ },
  { name: 'path traversal as a path', request: { method: 'GET', url: '/_profiler/%2e%2e/%2e%2e/etc/passwd' }, status: 404, message: /No route found/ },
  { name: 'path traversal in a panel', request: { method: 'GET', url: '/_profiler/latest?panel=../../../etc/passwd' }, status: 404, message: /Panel "\.\.\/\.\.\/\.\.\/etc\/passwd" is not available/ },
  { name: 'limit=abc', request: { method: 'GET', url: '/_profiler/empty/search/results?limit=abc' }, status: 400, message: /Invalid "limit" parameter "abc"/ },
  { name: 'limit=100000', request: { method: 'GET', url: '/_profiler/empty/search/results?limit=100000' }, status: 400, message: /Invalid "limit" parameter "100000": expected a whole number from 1 to 100/ },
  { name: 'an impossible date', request: { method: 'GET', url: '/_profiler/empty/search/results?start=2026-02-30' }, status: 400, message: /Invalid "start" parameter "2026-02-30"/ },
  { name: 'an impossible time', request: { method: 'GET', url: '/_profiler/empty/search/results?end=2026-01-01T25:61' }, status: 400, message: /Invalid "end" parameter/ },
  { name: 'an unknown panel', request: { method: 'GET', url: '/_profiler/latest?panel=nope' }, status: 404, message: /Panel "nope" is not available/ },
  { name: 'a non-hex token', request: { method: 'GET', url: '/_profiler/zzzzzz' }, status: 404, message: /Token "zzzzzz" not found/ },
  { name: 'a malformed percent-encoding', request: { method: 'GET', url: '/ccenter/%E0%A4%A' }, status: 400, message: /malformed percent-encoding/ },
  { name: 'PROPFIND on a route', request: { method: 'PROPFIND', url: LOOKUP }, status: 405, message: /Method Not Allowed \(Allow: POST\)/ },
  { name: 'PROPFIND elsewhere', request: { method: 'PROPFIND', url: '/webdav/' }, status: 404, message: /No route found for "PROPFIND/ },
  { name: 'OPTIONS on a route', request: { method: 'OPTIONS', url: LOOKUP }, status: 405, message: /Allow: POST/ }
]

const SQL = "' OR 1=1; DROP TABLE profiles; --"
const HTML = '"><script>alert(1)</script><img src=x onerror=alert(2)>'

t.test('each hostile request: a clear 4xx, a live service, a stored profile', async t => {
  const app = await buildTestApp(t)
  await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' }) // something to find with "latest"
  for (const { name, request, status, message } of CASES) {
    const res = await app.inject(request)
    t.equal(res.statusCode, status, `${name}: ${status}`)
    t.match(res.json().message, message, `${name}: says what is wrong`)
    const token = res.headers['x-debug-token']
    t.match(token, /^[0-9a-f]{6}$/, `${name}: profiled`)
    const profile = await profileJson(app, token as string)
    t.equal(profile.status, status, `${name}: stored with its status`)
    const alive = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
    t.equal(alive.statusCode, 200, `${name}: the service still answers`)
  }
})

t.test('SQL and HTML injection in every search filter: no effect, no 5xx, escaped', async t => {
  const app = await buildTestApp(t)
  await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  await app.profileStore.flush()
  // `token` is not a listing filter: /_profiler/search sends it on as a path, checked below.
  for (const filter of ['ip', 'method', 'status_code', 'url', 'start', 'end', 'limit', 'type']) {
    for (const attack of [SQL, HTML]) {
      const url = `/_profiler/empty/search/results?${filter}=${encodeURIComponent(attack)}`
      const res = await app.inject({ url, headers: { accept: 'text/html' } })
      t.ok(res.statusCode === 200 || res.statusCode === 400, `${filter}: ${res.statusCode}`)
      t.notOk(res.body.includes('<script>alert(1)'), `${filter}: not rendered as markup`)
      const answer = await app.inject({ url, headers: { accept: 'application/json' } })
      if (answer.statusCode === 200) t.same(answer.json().results, [], `${filter}: matches nothing`)
      else t.match(answer.json().message, new RegExp(`Invalid "${filter}" parameter|^querystring/${filter} `), `${filter}: says which parameter`)
    }
    const search = await app.inject({ url: `/_profiler/search?${filter}=${encodeURIComponent(SQL)}` })
    t.ok(search.statusCode < 500, `search redirect with ${filter}: ${search.statusCode}`)
  }
  for (const attack of [SQL, HTML]) {
    const search = await app.inject({ url: `/_profiler/search?token=${encodeURIComponent(attack)}` })
    t.equal(search.statusCode, 302)
    const page = await app.inject({ url: String(search.headers.location), headers: { accept: 'text/html' } })
    t.equal(page.statusCode, 404, 'an injected token is just an unknown token')
    t.notOk(page.body.includes('<script>alert(1)'))
  }
  const listing = await app.inject({ url: '/_profiler/empty/search/results?limit=100', headers: { accept: 'application/json' } })
  t.ok(listing.json().results.length >= 1, 'the profiles table is still there')
})
