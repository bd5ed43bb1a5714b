// run-suite: shares a process
import Database from 'better-sqlite3'
import fc from 'fast-check'
import t from 'tap'
import { buildApp } from '../../app.js'
import { addEncodedHistogram, bucketOf, denseHistogram, encodeHistogram, percentiles, PERCENTILE_ERROR } from '../../plugins/profiler/stats/histogram.js'
import { buildTestApp, testConfig } from '../helpers/app.js'
import { exactPercentile } from '../helpers/percentile.js'
import { listProfiles } from '../helpers/profiler.js'

const JSON_ACCEPT = { accept: 'application/json' }

const within = (estimate: number, exact: number): boolean => Math.abs(estimate - exact) <= exact * (PERCENTILE_ERROR + 1e-9)

t.test('histogram percentiles are within 4.4% of the exact ones, whatever the durations', async t => {
  t.ok(PERCENTILE_ERROR < 0.045)
  const durations = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 600_000_000 }).map(us => us / 1000)), { minLength: 1, maxLength: 300 })
  fc.assert(fc.property(durations, fc.constantFrom(1, 50, 90, 95, 99, 100), (list, percent) => {
    const histogram = new Map<number, number>()
    for (const ms of list) histogram.set(bucketOf(ms), (histogram.get(bucketOf(ms)) ?? 0) + 1)
    // As the page reads it: the stored bytes added into a window's dense histogram.
    const stored = denseHistogram()
    addEncodedHistogram(stored, encodeHistogram(histogram))
    const [estimate] = percentiles(stored, [percent], Math.max(...list))
    return within(estimate ?? Number.NaN, exactPercentile(list, percent))
  }), { numRuns: 500 })
})

t.test('GET /_profiler/stats: per route and method, unmatched per status, percentiles close to the exact ones', async t => {
  const app = await buildTestApp(t, {}, app => {
    // Durations spread over two orders of magnitude.
    app.get('/test/slow/:ms', async request => {
      await new Promise(resolve => setTimeout(resolve, Number((request.params as { ms: string }).ms)))
      return { ok: true }
    })
  })
  for (let i = 0; i < 40; i++) await app.inject({ url: `/test/slow/${i % 4 === 0 ? 80 : i % 8}` })
  for (let i = 0; i < 3; i++) await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  await app.inject({ url: '/monitor/MonitorPooling' })
  await app.inject({ url: '/robots.txt' })
  await app.inject({ url: '/.env' })
  await app.inject({ method: 'DELETE', url: '/nope' })
  const slow = await listProfiles(app, 'url=/test/slow/&limit=100')
  t.equal(slow.length, 40)

  const res = await app.inject({ url: '/_profiler/stats?window=1h', headers: JSON_ACCEPT })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-debug-token'], undefined, 'not profiled itself')
  const { window, from, to, routes } = res.json()
  t.equal(window, '1h')
  t.ok(Date.parse(to) - Date.parse(from) >= 3_600_000 && Date.parse(to) - Date.parse(from) < 3_660_000)
  const line = routes.find((r: { route: string }) => r.route === '/test/slow/:ms')
  const durations = slow.map(p => p.durationMs)
  t.match(line, { method: 'GET', status: null, count: 40, statusClasses: { '1xx': 0, '2xx': 40, '3xx': 0, '4xx': 0, '5xx': 0 } })
  t.equal(line.maxMs, Math.max(...durations), 'the max is exact')
  for (const percent of [50, 95, 99]) {
    const exact = exactPercentile(durations, percent)
    const estimate = line[`p${percent}Ms`]
    t.ok(within(estimate, exact), `p${percent}: ${estimate} ms against exactly ${exact} ms`)
  }
  t.ok(Math.abs(line.meanMs - durations.reduce((a, b) => a + b, 0) / durations.length) < 0.01)
  // Slowest p95 first (which route that is depends on the machine: a cold first poll can be slow too).
  t.ok(routes.every((r: { p95Ms: number }, i: number) => i === 0 || routes[i - 1].p95Ms >= r.p95Ms))
  t.match(routes.find((r: { route: string, method: string }) => r.route === '/monitor/MonitorPooling' && r.method === 'POST'), { count: 3, status: null })
  const unmatched = routes.filter((r: { route: string | null }) => r.route === null)
  t.same(unmatched.map((r: { status: number, count: number, method: null }) => [r.status, r.count, r.method]).sort(), [[404, 3, null], [405, 1, null]].sort(),
    'unmatched requests by status (the 405 of GET /monitor/MonitorPooling has no route either)')

  // Each line links to the listing filtered to exactly its requests.
  for (const r of routes) {
    const listed = await app.inject({ url: r.listing.replace('limit=10', 'limit=100'), headers: JSON_ACCEPT })
    t.equal(listed.statusCode, 200)
    t.equal(listed.json().results.length, r.count, `${r.listing} lists ${r.count}`)
  }
  t.match(unmatched[0].listing, /^\/_profiler\/empty\/search\/results\?status_code=40\d&route=none&start=\d+&limit=10&type=request$/)
  t.match(line.listing, /^\/_profiler\/empty\/search\/results\?method=GET&route=%2Ftest%2Fslow%2F%3Ams&start=\d+&limit=10&type=request$/)

  const page = await app.inject({ url: '/_profiler/stats?window=24h', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.match(page.body, /<h1>Route statistics<\/h1>/)
  t.match(page.body, /<a href="\/_profiler\/stats\?window&#x3D;24h" class="active" aria-current="page">Last 24h<\/a>/)
  t.notMatch(page.body, 'id="stats-deployments"', 'one deployment: no choice of deployment')
  t.match(page.body, /<td class="url"><a href="\/_profiler\/empty\/search\/results\?method&#x3D;GET&amp;route&#x3D;%2Ftest%2Fslow%2F%3Ams&amp;start&#x3D;\d+&amp;limit&#x3D;10&amp;type&#x3D;request" class="mono">\/test\/slow\/:ms<\/a><\/td>/)
  t.match(page.body, /\(no route matched\)<\/a> <span class="label status-error">404 Not Found<\/span>/)
  t.match(page.body, /<td class="num nowrap">\d+(\.\d+)? ms<\/td>/, 'durations in ms')
  t.notMatch(page.body, /style="/)
  t.equal((await app.inject({ url: '/_profiler/stats', headers: JSON_ACCEPT })).json().window, '1h', 'default window')
})

t.test('each window says the span it covers: 30d and 7d from a whole hour; a statistics bound shorter than the window is said', async t => {
  const app = await buildTestApp(t, { PROFILER_STATS_MAX_AGE: '7d' })
  for (let i = 0; i < 3; i++) await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  await app.profileStore.flush()
  const answer = async (window: string) => (await app.inject({ url: `/_profiler/stats?window=${window}`, headers: JSON_ACCEPT })).json()
  const week = await answer('7d')
  t.equal(week.bound, null, 'the bound covers the window')
  t.equal(Date.parse(week.from) % 3_600_000, 0, 'from a whole hour')
  t.ok(Date.parse(week.to) - Date.parse(week.from) >= 7 * 86_400_000 && Date.parse(week.to) - Date.parse(week.from) < 7 * 86_400_000 + 3_600_000)
  t.match(week.routes, [{ route: '/monitor/MonitorPooling', count: 3 }])
  const month = await answer('30d')
  t.same(month.bound, { statsMaxAge: '7d', from: week.from }, 'kept 7 days: the 30-day window holds 7')
  t.equal(month.from, week.from, 'the span covered starts with the bound')
  t.same(month.routes.map((r: { count: number }) => r.count), [3])
  const page = (await app.inject({ url: '/_profiler/stats?window=30d' })).body
  t.match(page, /<a href="\/_profiler\/stats\?window&#x3D;30d" class="active" aria-current="page">Last 30d<\/a>/)
  t.match(page, new RegExp(`From <time datetime="${week.from}">${week.from}</time> to <time datetime="[^"]+">[^<]+</time> \\(UTC\\)\\. <strong id="stats-bound">Statistics are kept 7d \\(PROFILER_STATS_MAX_AGE\\): this window holds none from before <time datetime="${week.from}">`))
  t.notMatch((await app.inject({ url: '/_profiler/stats?window=7d' })).body, 'id="stats-bound"', 'not for a window the bound covers')
})

t.test('the windows alert rules read (issue 40): 5m, 15m, 30m offered, and any rule window such as 90s or 2h, from its first minute', async t => {
  const app = await buildTestApp(t)
  for (let i = 0; i < 3; i++) await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  await app.profileStore.flush()
  for (const [window, ms, name] of [['5m', 300_000, '5m'], ['15m', 900_000, '15m'], ['30m', 1_800_000, '30m'], ['90s', 90_000, '90s'], ['2h', 7_200_000, '2h'], ['60m', 3_600_000, '1h']] as const) {
    const res = await app.inject({ url: `/_profiler/stats?window=${window}`, headers: JSON_ACCEPT })
    t.equal(res.statusCode, 200, window)
    const answer = res.json()
    t.equal(answer.window, name, `${window}: named as offered`)
    const spanMs = Date.parse(answer.to) - Date.parse(answer.from)
    t.equal(Date.parse(answer.from) % 60_000, 0, `${window}: from a whole minute`)
    t.ok(spanMs >= ms && spanMs < ms + 60_000, `${window}: the window and at most the minute its start falls in (${spanMs} ms)`)
    t.match(answer.routes, [{ route: '/monitor/MonitorPooling', method: 'POST', count: 3 }], `${window}: the requests`)
    t.equal(answer.trendSpan, ms <= 3_600_000 ? '1m' : '1h', `${window}: its trend's periods`)
  }
  const page = (await app.inject({ url: '/_profiler/stats?window=15m' })).body
  t.match(page, /<a href="\/_profiler\/stats\?window&#x3D;15m" class="active" aria-current="page">Last 15m<\/a>/, 'offered, and shown as chosen')
  for (const window of ['5m', '30m']) t.match(page, `<a href="/_profiler/stats?window&#x3D;${window}">Last ${window}</a>`)
})

t.test('a window that is not a duration from 1s to 30d is a 400 naming the parameter', async t => {
  const app = await buildTestApp(t)
  for (const window of ['31d', '721h', '999ms', '0m', '1H', '5 m', '-5m', 'constructor', '__proto__', '<b>']) {
    const res = await app.inject({ url: `/_profiler/stats?window=${encodeURIComponent(window)}`, headers: JSON_ACCEPT })
    t.equal(res.statusCode, 400, window)
    t.equal(res.json().message, `Invalid "window" parameter "${window}": expected 5m, 15m, 30m, 1h, 24h, 7d, 30d or another duration from 1s to 30d (90s, 10m, 2h)`)
    t.ok(res.headers['x-debug-token'], 'the error is profiled')
  }
  const html = await app.inject({ url: '/_profiler/stats?window=%3Cb%3E', headers: { accept: 'text/html' } })
  t.match(html.body, /&lt;b&gt;/)
  const bad = await app.inject({ url: '/_profiler/empty/search/results?route=abc', headers: JSON_ACCEPT })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /^Invalid "route" parameter "abc": expected a route pattern/)
})

t.test('the rollups are written with the profiles and outlive them; the page never reads the profiles', async t => {
  const config = testConfig(t, { PROFILER_MAX_PROFILES: '5' })
  const app = await buildApp(config)
  t.teardown(async () => { await app.close() })
  await app.ready()
  for (let i = 0; i < 12; i++) await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  await app.profileStore.flush()
  const total = async (): Promise<number> => (await app.inject({ url: '/_profiler/stats?window=7d', headers: JSON_ACCEPT })).json().routes
    .reduce((sum: number, r: { count: number }) => sum + r.count, 0)
  t.equal(await total(), 12)
  await app.profileStore.prune()
  t.equal((await listProfiles(app)).length, 5)
  t.equal(await total(), 12, 'pruned profiles stay in the statistics')

  const db = new Database(config.profilerDatabasePath)
  t.teardown(() => db.close())
  t.same(db.prepare('SELECT DISTINCT span_ms FROM profile_route_stats ORDER BY 1').pluck().all(), [60_000, 3_600_000], 'minute and hour rows')
  // Profiles gone from under the page: the statistics still answer from the rollups alone.
  db.prepare('DELETE FROM profile_blocks').run()
  db.prepare('DELETE FROM profiles').run()
  t.equal(await total(), 12)
})
