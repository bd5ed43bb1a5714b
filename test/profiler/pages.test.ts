// run-suite: shares a process
import t from 'tap'
import { buildTestApp, postJson } from '../helpers/app.js'
import { listProfiles } from '../helpers/profiler.js'

const JSON_ACCEPT = { accept: 'application/json' }

/** An app with a few varied profiles: 200 POSTs, a 404, a 405, a 301. */
async function appWithTraffic (t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t)
  await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' })
  await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', remoteAddress: '10.0.0.5' })
  await app.inject({ url: '/robots.txt', remoteAddress: '10.0.0.7' })
  await app.inject({ url: '/monitor/MonitorPooling' })
  await app.inject({ url: '/_profiler' })
  await app.profileStore.flush()
  return app
}

t.test('/_profiler/ redirects to the empty search results, /_profiler to /_profiler/', async t => {
  const app = await buildTestApp(t)
  const home = await app.inject({ url: '/_profiler/' })
  t.equal(home.statusCode, 302)
  t.equal(home.headers.location, '/_profiler/empty/search/results?limit=10')
  t.equal(home.headers['x-robots-tag'], 'noindex')
  const bare = await app.inject({ url: '/_profiler' })
  t.equal(bare.statusCode, 301)
  t.equal(bare.headers.location, 'http://localhost/_profiler/')
})

t.test('/_profiler/search redirects to a token, or to the newest match with the same query', async t => {
  const app = await appWithTraffic(t)
  const byToken = await app.inject({ url: '/_profiler/search?token=abc123&ip=1' })
  t.equal(byToken.headers.location, '/_profiler/abc123')
  const [newest404] = await listProfiles(app, 'status_code=404')
  const search = await app.inject({ url: '/_profiler/search?ip=&method=GET&status_code=404&url=&start=&end=&limit=10&type=request' })
  t.equal(search.statusCode, 302)
  t.equal(search.headers.location, `/_profiler/${newest404?.token ?? ''}/search/results?ip=&method=GET&status_code=404&url=&start=&end=&limit=10&type=request`)
  const none = await app.inject({ url: '/_profiler/search?status_code=418' })
  t.equal(none.headers.location, '/_profiler/empty/search/results?status_code=418&type=request', 'type=request is kept, as Symfony does')
  const bare = await app.inject({ url: '/_profiler/search' })
  t.equal(bare.headers.location, `/_profiler/${(await listProfiles(app, 'limit=1'))[0]?.token ?? ''}/search/results?type=request`)
  const bad = await app.inject({ url: '/_profiler/search?limit=abc', headers: JSON_ACCEPT })
  t.equal(bad.statusCode, 400)
})

t.test('the listing page: heading, count, columns, colours, times and token links, escaped', async t => {
  const app = await appWithTraffic(t)
  await app.inject({ url: '/x?q=%3Cscript%3Ealert(1)%3C/script%3E', headers: { referer: 'x' } })
  await app.profileStore.flush()
  const res = await app.inject({ url: '/_profiler/empty/search/results?limit=10', headers: { accept: 'text/html' } })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/html/)
  t.equal(res.headers['x-robots-tag'], 'noindex')
  const html = res.body
  t.match(html, /<meta name="robots" content="noindex,nofollow">/)
  t.match(html, /<h1>Profile Search<\/h1>/)
  t.match(html, /<h2>6 results found<\/h2>/)
  t.match(html, /<th>Status<\/th><th>IP<\/th><th>Method<\/th><th>URL<\/th><th>Time<\/th><th>Token<\/th>/)
  t.match(html, /<span class="label status-error">404<\/span>/)
  t.match(html, /<span class="label status-error">405<\/span>/)
  t.match(html, /<span class="label status-warning">301<\/span>/)
  t.match(html, /<span class="label status-success">200<\/span>/)
  t.match(html, /<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">\d\d-[A-Z][a-z]{2}-\d{4} \d\d:\d\d:\d\d<\/time>/)
  const [first] = await listProfiles(app, 'limit=1')
  t.match(html, new RegExp(`<a href="/_profiler/${first?.token ?? 'x'}">${first?.token ?? 'x'}</a>`))
  t.notMatch(html, /<script/)
  t.match(html, /<form class="search-form" action="\/_profiler\/search" method="get">/)
  for (const option of ['<option value="">Any</option>', '<option>DELETE</option>', '<option>PUT</option>', '<option value="10" selected>10</option>', '<option value="50">50</option>', '<option value="100">100</option>']) {
    t.ok(html.includes(option), option)
  }
  for (const field of ['name="ip"', 'name="status_code" min="100" max="599"', 'name="url"', 'name="token"', 'type="date" id="start" name="start"', 'type="date" id="end" name="end"']) {
    t.ok(html.includes(field), field)
  }
  const empty = await app.inject({ url: '/_profiler/empty/search/results?status_code=599', headers: { accept: 'text/html' } })
  t.match(empty.body, /<h2>No results found<\/h2>\s*<div class="empty empty-panel"><p>The query returned no result\.<\/p><\/div>/, 'Symfony\'s heading above its message')
  t.notMatch(empty.body, /\d+ results found/)
})

t.test('the listing as JSON', async t => {
  const app = await appWithTraffic(t)
  const res = await app.inject({ url: '/_profiler/empty/search/results?limit=2', headers: JSON_ACCEPT })
  t.equal(res.statusCode, 200)
  const { results } = res.json()
  t.equal(results.length, 2)
  t.same(Object.keys(results[0]), ['token', 'ip', 'method', 'url', 'status', 'time', 'durationMs', 'deployment', 'queries', 'queryMs', 'warnings', 'errors', 'traceId'])
  t.match(results[0], { method: 'GET', url: 'http://localhost/_profiler', status: 301, ip: '127.0.0.1' })
})

t.test('filters: ip, method, status, url, negated url, limit', async t => {
  const app = await appWithTraffic(t)
  const urls = async (query: string) => (await listProfiles(app, query)).map(p => `${p.status} ${p.url}`)
  t.same(await urls('ip=10.0.0'), ['404 http://localhost/robots.txt', '200 http://localhost/monitor/MonitorPooling'], 'ip substring')
  t.same(await urls('method=post'), ['200 http://localhost/monitor/MonitorPooling', '200 http://localhost/ccenter/getConseillerByCode'], 'method, any case')
  t.same(await urls('status_code=405'), ['405 http://localhost/monitor/MonitorPooling'])
  t.same(await urls('status_code=400'), [], 'status is exact')
  t.same(await urls('url=Monitor'), ['405 http://localhost/monitor/MonitorPooling', '200 http://localhost/monitor/MonitorPooling'])
  t.same(await urls('url=!monitor'), ['301 http://localhost/_profiler', '404 http://localhost/robots.txt', '200 http://localhost/ccenter/getConseillerByCode'])
  t.same(await urls('url=monitor&method=GET&ip=127'), ['405 http://localhost/monitor/MonitorPooling'], 'combined')
  t.equal((await listProfiles(app, 'limit=2')).length, 2)
  t.equal((await listProfiles(app, '')).length, 5, 'default limit 10')
})

t.test('filters: start and end are inclusive, as dates or date-times', async t => {
  const app = await appWithTraffic(t)
  const count = async (query: string) => (await listProfiles(app, query)).length
  const now = Date.now()
  const today = new Date(now).toISOString().slice(0, 10)
  const minute = (offset: number) => new Date(now + offset * 60_000).toISOString().slice(0, 16)
  t.equal(await count(`start=${today}&end=${today}`), 5, 'an end date covers the whole day')
  t.equal(await count(`start=${minute(-2)}&end=${minute(2)}`), 5)
  t.equal(await count(`start=${minute(2)}`), 0)
  t.equal(await count(`end=${minute(-2)}`), 0)
  t.equal(await count(`end=${Math.floor(now / 1000) - 120}`), 0, 'Unix seconds')
  const [newest] = await listProfiles(app, 'limit=1')
  const instant = encodeURIComponent(newest?.time ?? '')
  const exact = await listProfiles(app, `start=${instant}&end=${instant}`)
  t.ok(exact.length >= 1 && exact.every(p => p.time === newest?.time), 'an exact instant is inclusive at both ends')
})

t.test('an invalid filter is a 400 naming the parameter, never a 500', async t => {
  const app = await appWithTraffic(t)
  const cases: Array<[string, RegExp]> = [
    ['limit=abc', /Invalid "limit" parameter "abc": expected a whole number from 1 to 100/],
    ['limit=0', /"limit"/],
    ['limit=101', /"limit"/],
    ['limit=', /^$/],
    ['status_code=abc', /Invalid "status_code" parameter "abc"/],
    ['status_code=999', /"status_code"/],
    ['method=G3T', /Invalid "method" parameter "G3T"/],
    ['start=yesterday', /Invalid "start" parameter "yesterday": expected a date/],
    ['end=2026-02-30', /Invalid "end" parameter "2026-02-30"/],
    ['start=2026-01-01T25:00', /"start"/],
    ['start=2026-02-01&end=2026-01-01', /"start" \(2026-02-01\) is after "end" \(2026-01-01\)/],
    ['type=command', /Invalid "type" parameter "command"/],
    [`url=${'x'.repeat(3000)}`, /querystring\/url/]
  ]
  for (const [query, message] of cases) {
    const res = await app.inject({ url: `/_profiler/empty/search/results?${query}`, headers: JSON_ACCEPT })
    if (query === 'limit=') {
      t.equal(res.statusCode, 200, 'an empty value means "any"')
      continue
    }
    t.equal(res.statusCode, 400, query.slice(0, 40))
    t.match(res.json().message, message)
  }
  t.equal((await app.inject({ url: '/_profiler/nothex/search/results' })).statusCode, 404)
})

t.test('the profile page: summary, menu, default panel, latest, JSON twin', async t => {
  const app = await appWithTraffic(t)
  const [notFound] = await listProfiles(app, 'status_code=404')
  const token = notFound?.token ?? ''
  const page = await app.inject({ url: `/_profiler/${token}`, headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.equal(page.headers['x-robots-tag'], 'noindex')
  const html = page.body
  t.match(html, /<meta name="robots" content="noindex,nofollow">/)
  t.match(html, /Error 404<\/span> Not Found/)
  t.match(html, /<dt>Method<\/dt><dd>GET<\/dd>/)
  t.match(html, /<dd class="mono">http:\/\/localhost\/robots.txt<\/dd>/)
  t.match(html, /<dt>IP<\/dt><dd>10.0.0.7<\/dd>/)
  t.match(html, new RegExp(`<dt>Token</dt><dd class="mono">${token}</dd>`))
  t.match(html, /<div class="panel" id="panel-exception">/, 'exception is the default panel when there was one')
  for (const panel of ['request', 'performance', 'exception', 'router', 'db']) {
    t.match(html, new RegExp(`href="/_profiler/${token}\\?panel=${panel}&amp;type=request"`))
  }
  const [ok] = await listProfiles(app, 'status_code=200&method=POST&limit=1')
  const okPage = await app.inject({ url: `/_profiler/${ok?.token ?? ''}`, headers: { accept: 'text/html' } })
  t.match(okPage.body, /<div class="panel" id="panel-request">/, 'request otherwise')

  const latest = await app.inject({ url: '/_profiler/latest', headers: JSON_ACCEPT })
  const [newest] = await listProfiles(app, 'limit=1')
  t.equal(latest.json().token, newest?.token)
  const json = await app.inject({ url: `/_profiler/${token}`, headers: JSON_ACCEPT })
  t.match(json.json(), { token, status: 404, statusText: 'Not Found', method: 'GET', url: 'http://localhost/robots.txt', ip: '10.0.0.7', route: null, type: 'request', panel: 'exception' })
  t.same(Object.keys(json.json().panels), ['request', 'performance', 'exception', 'router', 'db', 'logs', 'timeline', 'env'])
  const one = await app.inject({ url: `/_profiler/${token}?panel=router&type=request`, headers: JSON_ACCEPT })
  t.same(Object.keys(one.json().panels), ['router'])
})

t.test('unknown tokens and panels are 404s with Symfony wording', async t => {
  const app = await appWithTraffic(t)
  const [any] = await listProfiles(app, 'limit=1')
  const cases: Array<[string, string]> = [
    ['/_profiler/abc123', 'Token "abc123" not found.'],
    ['/_profiler/ABC123', 'Token "ABC123" not found.'],
    ['/_profiler/robots.txt', 'Token "robots.txt" not found.'],
    [`/_profiler/${any?.token ?? ''}?panel=twig`, `Panel "twig" is not available for token "${any?.token ?? ''}".`]
  ]
  for (const [url, message] of cases) {
    const res = await app.inject({ url, headers: JSON_ACCEPT })
    t.equal(res.statusCode, 404, url)
    t.equal(res.json().message, message)
  }
  const empty = await buildTestApp(t)
  t.equal((await empty.inject({ url: '/_profiler/latest', headers: JSON_ACCEPT })).json().message, 'Token "latest" not found.')
  const html = await app.inject({ url: '/_profiler/%3Cb%3Ex', headers: { accept: 'text/html' } })
  t.equal(html.statusCode, 404)
  t.match(html.body, /Token &quot;&lt;b&gt;x&quot; not found\./)
})
