// run-suite: shares a process
import t from 'tap'
import { formatBytes, formatMs } from '../../plugins/profiler/units.js'
import { buildTestApp } from '../helpers/app.js'
import { listProfiles, profileJson } from '../helpers/profiler.js'

const HTML = { accept: 'text/html' }

t.test('human units: ms with about three significant digits, seconds past 1 s, binary sizes', async t => {
  t.same([0, 0.0004, 0.412, 2.4849, 12.46, 148.4, 999.4, 1234, 12_345, 123_456].map(formatMs),
    ['0 ms', '0.000 ms', '0.412 ms', '2.48 ms', '12.5 ms', '148 ms', '999 ms', '1.23 s', '12.3 s', '123 s'])
  t.same([0, 512, 1024, 25_400, 26_011_944, 5 * 1024 ** 3].map(formatBytes), ['0 B', '512 B', '1.0 KiB', '24.8 KiB', '24.8 MiB', '5.0 GiB'])
})

t.test('every profiler page: the header links, its own icon, no inline style', async t => {
  const app = await buildTestApp(t)
  await app.inject({ url: '/robots.txt' })
  await app.profileStore.flush()
  const [profile] = await listProfiles(app, 'limit=1')
  for (const url of ['/_profiler/empty/search/results', `/_profiler/${profile?.token ?? ''}`, '/_profiler/stats', '/_profiler/alerts']) {
    const { body } = await app.inject({ url, headers: HTML })
    t.match(body, '<nav id="profiler-nav" aria-label="Profiler"><a href="/_profiler/search?limit=10&amp;type=request">Search profiles</a> <a href="/_profiler/latest?type=request">Latest</a> <a href="/_profiler/stats">Route statistics</a> <a href="/_profiler/alerts">Alerts</a></nav>', url)
    t.match(body, /<link rel="icon" type="image\/svg\+xml" href="data:image\/svg\+xml,/)
    t.notMatch(body, /style="/)
    t.notMatch(body, /<script/)
  }
  const search = await app.inject({ url: '/_profiler/search?limit=10&type=request' })
  t.equal(search.headers.location, `/_profiler/${profile?.token ?? ''}/search/results?limit=10&type=request`)
  const latest = await app.inject({ url: '/_profiler/latest?type=request', headers: HTML })
  t.equal(latest.statusCode, 200)
})

t.test('the profile page links to the previous and next profiles', async t => {
  const app = await buildTestApp(t)
  for (const path of ['/a', '/b', '/c']) await app.inject({ url: path })
  const [c, b, a] = await listProfiles(app)
  const page = async (token: string) => (await app.inject({ url: `/_profiler/${token}?panel=router`, headers: HTML })).body
  const middle = await page(b?.token ?? '')
  t.match(middle, `<a href="/_profiler/${a?.token ?? ''}?panel=router&amp;type=request" rel="prev" id="previous-profile">`)
  t.match(middle, `<a href="/_profiler/${c?.token ?? ''}?panel=router&amp;type=request" rel="next" id="next-profile">`)
  t.match(await page(a?.token ?? ''), '<span class="none">&larr; Previous profile</span>', 'the oldest has no previous')
  t.match(await page(c?.token ?? ''), '<span class="none">Next profile &rarr;</span>', 'the newest has no next')
})

t.test('the performance panel: human units and a timeline proportional to the phases', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/wait', async () => {
      // Long beside the rest even on a loaded machine's first, cold request.
      await new Promise(resolve => setTimeout(resolve, 300))
      return { ok: true }
    })
  })
  const res = await app.inject({ url: '/test/wait' })
  const token = res.headers['x-debug-token'] as string
  const { performance } = (await profileJson(app, token)).panels
  const { body } = await app.inject({ url: `/_profiler/${token}?panel=performance`, headers: HTML })
  t.match(body, `<tr><th>Heap used at the end</th><td>${formatBytes(performance.heapUsedBytes)}</td></tr>`)
  t.match(body, /<td>\d+(\.\d)? MiB<\/td>/)
  t.notMatch(body, /bytes</)
  t.match(body, `<tr><th>In the handler</th><td>${formatMs(performance.handlerMs)}</td></tr>`)
  t.match(body, `<dt>Duration</dt><dd>${formatMs((await listProfiles(app, 'limit=1'))[0]?.durationMs ?? 0)}</dd>`)
  const rects = [...body.matchAll(/<rect class="phase-(\w+)" x="([\d.]+)" y="0" width="([\d.]+)" height="28"><title>[^<]+<\/title><\/rect>/g)]
    .map(([, name, x, width]) => ({ name, x: Number(x), width: Number(width) }))
  t.same(rects.map(r => r.name), ['before', 'handler', 'sending'])
  const phases = [performance.beforeHandlerMs, performance.handlerMs, performance.sendingMs]
  const sum = phases.reduce((a: number, b: number) => a + b, 0)
  rects.forEach((rect, i) => {
    t.ok(Math.abs(rect.width - phases[i] / sum * 1000) < 0.02, `${rect.name}: ${rect.width} of 1000 for ${phases[i]} ms of ${sum}`)
    t.ok(Math.abs(rect.x - rects.slice(0, i).reduce((x, r) => x + r.width, 0)) < 0.05, 'laid end to end')
  })
  t.ok((rects[1]?.width ?? 0) > 500, 'the 300 ms handler takes most of the bar')

  // No handler ran (a 404): two phases only.
  const miss = await app.inject({ url: '/nope' })
  await app.profileStore.flush()
  const missing = await app.inject({ url: `/_profiler/${miss.headers['x-debug-token'] as string}?panel=performance`, headers: HTML })
  t.same([...missing.body.matchAll(/<rect class="phase-(\w+)" x=/g)].map(m => m[1]), ['before', 'sending'])
  t.match(missing.body, '(no handler ran)')
})
