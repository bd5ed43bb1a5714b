// run-suite: shares a process
// Trends, A against B, and where a profile stood, on both engines: each line's count and p95 per
// period (the JSON and the page's sparklines), two deployments writing one store compared side by
// side, and a profile's percentile among its route's requests over the last 24 hours.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { bucketOf, PERCENTILE_ERROR } from '../../plugins/profiler/stats/histogram.js'
import { buildTestApp } from '../helpers/app.js'
import { listProfiles, profilerPage, statsJson } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'

const engines = storeEngines(t)

type Line = Record<string, any>
const sleepRoute = (app: FastifyInstance): void => {
  app.get('/test/slow/:ms', async request => {
    await new Promise(resolve => setTimeout(resolve, Number((request.params as { ms: string }).ms)))
    return { ok: true }
  })
}
const slowLine = (routes: Line[]): Line => routes.find(line => line.route === '/test/slow/:ms') as Line
const unescape = (text: string): string => text.replace(/&#x3D;/g, '=').replace(/&amp;/g, '&').replace(/&#x27;/g, "'")

/** The two sparklines of the line whose link holds `route` (encoded), from the page's HTML: each one's points and title. */
function pageSparklines (html: string, route: string): Array<{ points: string[], title: string }> {
  const row = html.split('<tr>').find(part => part.includes(encodeURIComponent(route))) ?? ''
  return [...row.matchAll(/<svg class="sparkline [^"]+" viewBox="0 0 120 24" role="img"><title>([^<]*)<\/title><polyline points="([^"]*)"\/><\/svg>/g)]
    .map(match => ({ title: unescape(match[1] ?? ''), points: (match[2] ?? '').split(' ').filter(point => point !== '') }))
}

/** The page's "from" (its sparklines' titles), as the JSON's trendFrom reads in it. */
const pageFrom = (html: string): string | undefined => /\d+ (?:minute|hour)s from (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(html)?.[1]
const jsonFrom = (trendFrom: string): string => trendFrom.slice(0, 16).replace('T', ' ')

/**
 * A window's JSON and its HTML page over the same periods: the two are read one after the other,
 * and a minute (or hour) turning between the reads shifts the page's periods by one. So the pair
 * is read again when the page's periods start elsewhere than the JSON's; a third pair (two turns
 * in a row cannot happen within seconds) is returned as it is, for the test to report.
 */
async function statsAndPage (app: FastifyInstance, window: string): Promise<{ stats: Line, html: string }> {
  for (let attempt = 1; ; attempt++) {
    const stats = await statsJson(app, `?window=${window}`) as Line
    const html = (await app.inject({ url: `/_profiler/stats?window=${window}`, headers: { accept: 'text/html' } })).body
    if (attempt === 3 || pageFrom(html) === jsonFrom(stats.trendFrom)) return { stats, html }
  }
}

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const { fresh } = engine

    t.test('each line\'s count and p95 per minute (1h) or hour (24h, 7d, 30d): in the JSON and as the page\'s sparklines', async t => {
      const app = await buildTestApp(t, await fresh(t), sleepRoute)
      for (let i = 0; i < 12; i++) await app.inject({ url: `/test/slow/${i % 3}` })
      await app.profileStore.flush()
      for (const [window, points, span] of [['1h', 61, 'minute'], ['24h', 25, 'hour'], ['7d', 169, 'hour'], ['30d', 721, 'hour']] as const) {
        const { stats, html } = await statsAndPage(app, window)
        t.equal(stats.trendSpan, span === 'minute' ? '1m' : '1h')
        const { trend, count } = slowLine(stats.routes)
        t.equal(trend.counts.length, points, `${window}: ${points} periods`)
        t.equal(trend.p95Ms.length, points)
        t.equal(trend.counts.reduce((a: number, b: number) => a + b, 0), count, `${window}: the periods hold every request`)
        const busy = trend.counts.flatMap((n: number, i: number) => n > 0 ? [i] : [])
        t.ok(busy.length >= 1 && busy.length <= 2 && busy.at(-1) >= points - 2, 'the requests are in the last period or two (a minute may have turned)')
        t.same(trend.p95Ms.flatMap((ms: number | null, i: number) => ms === null ? [] : [i]), busy, 'a p95 where there were requests, none elsewhere')
        if (busy.length === 1) t.equal(trend.p95Ms[busy[0]], slowLine(stats.routes).p95Ms, 'one period: its p95 is the window\'s')
        const periodMs = span === 'minute' ? 60_000 : 3_600_000
        t.equal(Date.parse(stats.trendFrom) % periodMs, 0, 'periods start at whole minutes or hours')

        t.equal(pageFrom(html), jsonFrom(stats.trendFrom), 'the page\'s periods start where the JSON\'s do')
        const [counts, p95] = pageSparklines(html, '/test/slow/:ms')
        t.equal(counts?.points.length, points, 'the count sparkline: a point per period')
        t.equal(p95?.points.length, busy.length, 'the p95 sparkline: a point per period with requests')
        t.match(counts?.title, new RegExp(`^Requests per ${span}, ${points} ${span}s from \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC: ${trend.counts.join(', ')}$`), 'its figures in words')
        t.match(p95?.title, new RegExp(`^p95 per ${span}, .*: (none, )*[\\d.]+ m?s`))
        const heights = counts?.points.map(point => Number(point.split(',')[1])) ?? []
        t.equal(Math.min(...heights), heights[trend.counts.indexOf(Math.max(...trend.counts))], 'the busiest period is drawn highest')
      }
    })

    t.test('A against B: each side as it alone answers, the difference, and the slower one marked beyond the error', async t => {
      const store = await fresh(t)
      const a = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'A' }, sleepRoute)
      const b = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'B' }, sleepRoute)
      for (let i = 0; i < 6; i++) await a.inject({ url: '/test/slow/1' })
      // B's requests take 300 ms: A's p99 is its slowest of six 1 ms requests, and B must stay slower
      // beyond the error (about 9% in all) even when one of A's stalls tens of ms on a loaded machine.
      // Sent together: 300 ms in all, about what four 60 ms ones in a row took.
      await Promise.all(Array.from({ length: 4 }, async () => await b.inject({ url: '/test/slow/300' })))
      await a.inject({ url: '/missing' })
      await a.profileStore.flush()
      await b.profileStore.flush()

      for (const window of ['1h', '24h']) {
        const alone = { A: await statsJson(a, `?window=${window}&deployment=A`), B: await statsJson(a, `?window=${window}&deployment=B`) }
        const compared = await statsJson(b, `?window=${window}&deployment=A&compare=B`) as Line
        t.equal(compared.compare, 'B')
        t.same(compared.routes.map((line: Line) => [line.route, line.count]), alone.A.routes.map(line => [line.route, line.count]), 'the lines are A\'s')
        const figures = (line: Line | undefined) => line === undefined ? null : { count: line.count, p50Ms: line.p50Ms, p95Ms: line.p95Ms, p99Ms: line.p99Ms }
        const slow = compared.comparison.find((line: Line) => line.route === '/test/slow/:ms')
        t.same(slow.a, figures(slowLine(alone.A.routes)), `${window}: A's figures as A alone answers them`)
        t.same(slow.b, figures(slowLine(alone.B.routes)), `${window}: B's figures as B alone answers them`)
        t.match(slow.a, { count: 6 })
        t.match(slow.b, { count: 4 })
        for (const p of ['p50', 'p95', 'p99']) {
          t.equal(slow[p].diffMs, Math.round((slow.b[`${p}Ms`] - slow.a[`${p}Ms`]) * 1000) / 1000, `${p}: B minus A`)
          t.ok(slow.b[`${p}Ms`] / (1 + PERCENTILE_ERROR) > slow.a[`${p}Ms`] * (1 + PERCENTILE_ERROR), `${p}: B is slower than the error can explain`)
          t.equal(slow[p].slower, 'B', `${p}: B marked slower`)
        }
        const missing = compared.comparison.find((line: Line) => line.route === null)
        t.match(missing, { status: 404, a: { count: 1 }, b: null, p95: { diffMs: null, slower: null } }, 'a line only A has')
        t.same(compared.comparison.map((line: Line) => line.route), ['/test/slow/:ms', null], 'the slowest p95 of the two first')

        // The same figures, the other way round: A is the one marked.
        const reversed = (await statsJson(a, `?window=${window}&deployment=B&compare=A`) as Line).comparison.find((line: Line) => line.route === '/test/slow/:ms')
        t.same([reversed.a, reversed.b, reversed.p95.slower], [slow.b, slow.a, 'B'])
      }

      const page = (await a.inject({ url: '/_profiler/stats?deployment=A&compare=B', headers: { accept: 'text/html' } })).body
      t.match(page, /<h2 id="comparison-heading">A \(A\) against B \(B\)<\/h2>/)
      const row = page.split('<tr>').find(part => part.includes('/test/slow/:ms') && part.includes('slower-text')) ?? ''
      t.match(row, /<td class="num">6<\/td>\s*<td class="num">4<\/td>/, 'both counts')
      t.equal([...row.matchAll(/<td class="num nowrap slower">\+[\d.]+ m?s<\/td>/g)].length, 3, 'each difference marked')
      t.match(row, /<td class="slower-text">B slower: p50, p95, p99<\/td>/)
      t.match(page, /<nav class="tabs" id="stats-compare" aria-label="Compare with">Compare with: <a href="\/_profiler\/stats\?window&#x3D;1h&amp;deployment&#x3D;A&amp;compare&#x3D;B" class="active" aria-current="page">B<\/a><\/nav>/)
      const hostile = (await a.inject({ url: '/_profiler/stats?deployment=A&compare=%3Cb%3E', headers: { accept: 'text/html' } })).body
      t.match(hostile, /A \(A\) against &lt;b&gt; \(B\)/, 'escaped')
      const alone = await profilerPage(a, '/stats?compare=B')
      t.equal(alone.statusCode, 400)
      t.equal(JSON.parse(alone.body).message, 'Invalid "compare" parameter "B": expected a "deployment" to compare it with')
    })

    t.test('a profile\'s summary says where it stood: its percentile among its route\'s requests over the last 24h', async t => {
      const app = await buildTestApp(t, await fresh(t), sleepRoute)
      for (const ms of [0, 0, 1, 2, 4, 8, 16, 32, 2, 1]) await app.inject({ url: `/test/slow/${ms}` })
      await app.inject({ url: '/missing' })
      await app.profileStore.flush()
      const profiles = await listProfiles(app, 'url=/test/slow/&limit=100')
      t.equal(profiles.length, 10)
      const durations = profiles.map(p => p.durationMs)
      for (const profile of profiles) {
        // As fast or faster: in its histogram bucket or a lower one.
        const expected = Math.floor(100 * durations.filter(ms => bucketOf(ms) <= bucketOf(profile.durationMs)).length / durations.length)
        const page = (await app.inject({ url: `/_profiler/${profile.token}`, headers: { accept: 'text/html' } })).body
        t.match(page, `<dt>Where it stood</dt><dd id="route-standing">p${expected} of this route over the last 24h (out of 10, every deployment)</dd>`, `${profile.durationMs} ms: p${expected}`)
      }
      const slowest = profiles.reduce((x, y) => y.durationMs > x.durationMs ? y : x)
      t.match((await app.inject({ url: `/_profiler/${slowest.token}`, headers: { accept: 'text/html' } })).body, /id="route-standing">p100 /, 'the slowest is p100')
      const unmatched = (await listProfiles(app, 'status_code=404'))[0]
      t.match((await app.inject({ url: `/_profiler/${unmatched?.token ?? ''}`, headers: { accept: 'text/html' } })).body,
        /id="route-standing">p100 of unmatched 404 requests over the last 24h \(out of 1, every deployment\)/, 'unmatched: among its status')
    })
  })
}
