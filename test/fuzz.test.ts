// run-suite: shares a process
// A bounded fuzz run: thousands of random method/path/header/body combinations from a fixed
// seed. No answer may be a 5xx, and every request is in the profile store once (the profiler's
// own pages are recorded only when they answer an error).
import BetterSqlite3 from 'better-sqlite3'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { seededRandom } from './helpers/random.js'
import { buildTestApp } from './helpers/app.js'
import { sqlitePanels } from './helpers/sqlite-panels.js'

const SEED = 0x5eed2026
const REQUESTS = 2500

const METHODS = ['GET', 'GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND', 'MKCOL', 'TRACE', 'SEARCH']
const SEGMENTS = ['ccenter', 'getConseillerByCode', 'monitor', 'MonitorPooling', '_profiler', 'latest', 'search', 'results', 'empty',
  'abcdef', '..', '%2e%2e', '%', '%E0%A4', '%ff', '%00', '%2F', 'a'.repeat(300), '%3Cscript%3E', 'ADV1001', '', '%20', '%F0%9F%98%80', 'robots.txt', '.env', 'wp-admin']
const ROUTES = ['/ccenter/getConseillerByCode', '/monitor/MonitorPooling', '/monitor/MonitorPooling/', '/_profiler/', '/_profiler/latest', '/_profiler/empty/search/results', '/_profiler/search', '/_profiler/abcdef']
const QUERIES = ['', '?', '?a=1', '?panel=exception', '?panel=../../x', '?limit=abc', '?limit=100000', '?start=2026-02-31', '?password=fuzz-pass',
  `?ip=${encodeURIComponent("' OR 1=1 --")}`, '?url=%3Cscript%3E', '?method=GET&status_code=999', '?a=%zz', '?x=' + 'y'.repeat(2000),
  // The hostile shapes of the edge hardening: nested pairs, escape runs, bracket runs, JWT-like runs.
  '?x=' + 'a='.repeat(6000), '?q=' + '%'.repeat(3000), '?u=' + '%E0%A4'.repeat(500), '?t=' + 'eyJ-'.repeat(2000), '?b=' + '['.repeat(4000),
  '?a=a=a=password=fuzz-pass', '?s=%00%00%00', '?m=%D8%00%DC%00']
const CONTENT_TYPES = ['application/json', 'application/json', 'application/x-www-form-urlencoded', 'text/plain', 'application/vnd.api+json',
  'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/xml', '']
const ACCEPTS = ['text/html', 'application/json', '*/*', 'text/html,application/xhtml+xml;q=0.9', 'image/png', '']

function pick<T> (random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T
}

function randomBody (random: () => number): string | Buffer {
  switch (Math.floor(random() * 13)) {
    case 0: return ''
    case 1: return JSON.stringify({ code: pick(random, ['ADV1001', 'ADV9999', ' ', '', 'x'.repeat(70)]) })
    case 2: return JSON.stringify({ code: random() * 1000 })
    case 3: return '{"code": "ADV1001"'
    case 4: return `${'['.repeat(100 + Math.floor(random() * 900))}`
    case 5: return '{"__proto__": {"polluted": true}, "code": "ADV1001"}'
    case 6: return Buffer.from(Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256)))
    case 7: return 'code=ADV1001&password=fuzz-pass&code=ADV1002'
    case 8: return pick(random, ['null', '[]', '"text"', '42', 'true'])
    case 9: return JSON.stringify({ code: 'ADV1002', extra: { deep: [1, { password: 'fuzz-pass' }] } })
    case 10: return `{"code":"${'z'.repeat(random() < 0.2 ? 1_100_000 : Math.floor(random() * 100))}"}`
    case 11: return pick(random, [
      `{"code":"ADV1001","x":"${'a='.repeat(20_000 + Math.floor(random() * 100_000))}"}`,
      `{"code":"${'eyJ-'.repeat(10_000 + Math.floor(random() * 50_000))}"}`,
      `{"code":"\u0000\ud800\udc00\ud800 Ж 中 😀 ${'%'.repeat(Math.floor(random() * 5000))}"}`,
      `x=${'a='.repeat(Math.floor(random() * 50_000))}&password=fuzz-pass`,
      `${'{"a":'.repeat(30 + Math.floor(random() * 60))}1${'}'.repeat(30 + Math.floor(random() * 60))}`
    ])
    default: return '<?xml version="1.0"?><code>ADV1001</code>'
  }
}

function randomRequest (random: () => number): InjectOptions {
  const segments = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, SEGMENTS))
  const path = random() < 0.5 ? pick(random, ROUTES) : `/${segments.join('/')}${random() < 0.2 ? '/' : ''}`
  const url = path + pick(random, QUERIES)
  const method = pick(random, METHODS) as InjectOptions['method']
  const headers: Record<string, string> = {}
  const contentType = pick(random, CONTENT_TYPES)
  if (contentType !== '') headers['content-type'] = contentType
  const accept = pick(random, ACCEPTS)
  if (accept !== '') headers.accept = accept
  if (random() < 0.3) headers.referer = pick(random, ['http://evil.example/<script>', 'not a url', `http://x/?token=fuzz-token-${Math.floor(random() * 100)}`])
  if (random() < 0.2) headers.authorization = pick(random, ['Bearer fuzz-bearer', 'Basic Zm9vOmJhcg==', 'garbage'])
  if (random() < 0.1) headers['x-forwarded-for'] = '10.0.0.1, <script>'
  if (random() < 0.1) headers.host = pick(random, ['###', 'WWW.Example.TEST:8080', 'a b', 'x'.repeat(300), '[::1]:8000', 'ex%41mple.test', 'localhost:99999999'])
  if (random() < 0.1) headers['user-agent'] = pick(random, ['a='.repeat(3000), '%00\\'.repeat(50), 'eyJ-'.repeat(1000)])
  const withBody = method !== 'GET' && method !== 'HEAD' && random() < 0.8
  return { method, url, headers, ...(withBody ? { payload: randomBody(random) } : {}) }
}

t.test(`${REQUESTS} random requests (seed ${SEED.toString(16)}): no 5xx, one stored profile each`, async t => {
  const app = await buildTestApp(t)
  const random = seededRandom(SEED)
  const statuses = new Map<number, number>()
  const tokens = new Set<string>()
  let unprofiled = 0
  const serverErrors: string[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const request = randomRequest(random)
    const res = await app.inject(request)
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
    if (res.statusCode >= 500) serverErrors.push(`${request.method ?? 'GET'} ${String(request.url).slice(0, 80)} -> ${res.statusCode} ${res.body.slice(0, 200)}`)
    const token = res.headers['x-debug-token']
    if (typeof token === 'string') tokens.add(token)
    else if (new URL(String(request.url), 'http://x').pathname.startsWith('/_profiler') && res.statusCode < 400) unprofiled++
    else t.fail(`not profiled: ${request.method ?? 'GET'} ${String(request.url).slice(0, 80)} -> ${res.statusCode}`)
  }
  t.same(serverErrors, [], 'no 5xx')
  t.equal(tokens.size + unprofiled, REQUESTS, 'every request has a token, except successful profiler pages')
  t.ok([...statuses.keys()].filter(status => status >= 400).length >= 4 && statuses.has(200), `a spread of answers: ${JSON.stringify(Object.fromEntries(statuses))}`)

  await app.profileStore.flush()
  t.equal(app.profileStore.dropped, 0, 'nothing dropped')
  const db = new BetterSqlite3(app.config.profilerDatabasePath, { readonly: true })
  t.teardown(() => db.close())
  const stored = db.prepare('SELECT token FROM profiles').pluck().all() as string[]
  t.equal(stored.length, tokens.size, 'one stored profile per profiled request')
  t.same(new Set(stored), tokens, 'the very tokens that were answered')
  const everything = sqlitePanels(db).map(row => row.panels).join('\n')
  t.notOk(everything.includes('fuzz-pass'), 'no password in the store')
  t.notOk(everything.includes('fuzz-bearer'), 'no bearer credential in the store')
})
