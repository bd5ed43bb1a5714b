// run-suite: shares a process
// The same assertions on both store engines: SQLite (a file) and PostgreSQL (a throwaway cluster).
// What a user sees must not depend on the engine: listing, detail, filters, deployments, token
// uniqueness, retention bounds, statistics counted once when a batch is written twice.
import t, { type Test } from 'tap'
import type { StoreWriter } from '../../plugins/profiler/engine/contract.js'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { PANEL_NAMES } from '../../plugins/profiler/panels/index.js'
import { STATISTICS_STAMP_MAX_AGE_MS } from '../../plugins/profiler/engine/retention-policy.js'
import { buildTestApp, postJson } from '../helpers/app.js'
import { listProfiles, profileJson, routeFigures, statsJson } from '../helpers/profiler.js'
import { queryOn } from '../helpers/postgres.js'
import { statisticsStamps, storedPanels, storeEngines, storeTarget } from '../helpers/store-engines.js'

const engines = storeEngines(t)

const JSON_ACCEPT = { accept: 'application/json' }

/** The store's writer, as the writer thread opens it (deployment A), closed when the test ends. */
async function openWriter (t: Test, env: Record<string, string>, maxProfiles: number): Promise<StoreWriter> {
  const limits = { maxProfiles, maxAgeMs: 86_400_000, maxBytes: 1024 ** 3, statsMaxAgeMs: 30 * 86_400_000 }
  const writer = await openStoreWriter(storeTarget(env), 'A', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
  t.teardown(async () => { await writer.close() })
  return writer
}

// The two engines run side by side: PostgreSQL's start and queries overlap SQLite's tests.
t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const { fresh } = engine

    t.test('records every request: listing newest first, detail with panels, summary', async t => {
      const app = await buildTestApp(t, { ...await fresh(t), PROFILER_DEPLOYMENT: 'A' })
      const tokens: string[] = []
      tokens.push((await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' })).headers['x-debug-token'] as string)
      tokens.push((await app.inject({ url: '/robots.txt', remoteAddress: '10.0.0.7' })).headers['x-debug-token'] as string)
      const listed = await listProfiles(app)
      t.same(listed.map(p => p.token), tokens.slice().reverse())
      t.match(listed[0], { ip: '10.0.0.7', method: 'GET', url: 'http://localhost/robots.txt', status: 404, deployment: 'A' })
      t.ok(Date.parse(listed[0]?.time ?? '') <= Date.now(), 'an ISO time')
      const detail = await profileJson(app, tokens[0] ?? '')
      t.match(detail, { token: tokens[0], method: 'POST', status: 200, deployment: 'A', route: '/ccenter/getConseillerByCode' })
      t.match(detail.panels.request, { method: 'POST' })
      t.same(Object.keys(detail.panels).sort(), [...PANEL_NAMES].sort(), 'every declared panel, per-process ones included')
      const html = await app.inject({ url: `/_profiler/${tokens[0] ?? ''}` })
      t.match(html.body, /<dt>Deployment<\/dt><dd>A<\/dd>/, 'the summary names the deployment')
      t.equal((await app.inject({ url: '/_profiler/latest', headers: JSON_ACCEPT })).json().token, tokens[1])
      t.equal((await app.inject({ url: '/_profiler/abcdef', headers: JSON_ACCEPT })).statusCode, 404)
    })

    t.test('filters: ip, method, status, url (substring, negated), time, limit', async t => {
      const app = await buildTestApp(t, await fresh(t))
      await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' })
      await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', remoteAddress: '10.0.0.5' })
      await app.inject({ url: '/robots.txt', remoteAddress: '10.0.0.7' })
      await app.inject({ url: '/monitor/MonitorPooling' })
      const urls = async (query: string): Promise<string[]> => (await listProfiles(app, query)).map(p => `${p.status} ${p.url}`)
      t.same(await urls('ip=10.0.0'), ['404 http://localhost/robots.txt', '200 http://localhost/monitor/MonitorPooling'])
      t.same(await urls('ip=.7'), ['404 http://localhost/robots.txt'], 'a short IP substring')
      t.same(await urls('method=post'), ['200 http://localhost/monitor/MonitorPooling', '200 http://localhost/ccenter/getConseillerByCode'])
      t.same(await urls('status_code=405'), ['405 http://localhost/monitor/MonitorPooling'])
      t.same(await urls('url=Monitor'), ['405 http://localhost/monitor/MonitorPooling', '200 http://localhost/monitor/MonitorPooling'])
      t.same(await urls('url=monitor%25'), [], 'LIKE wildcards are literal')
      t.same(await urls('url=!monitor'), ['404 http://localhost/robots.txt', '200 http://localhost/ccenter/getConseillerByCode'])
      t.same(await urls('url=ro'), ['404 http://localhost/robots.txt'], 'a short URL substring')
      t.same(await urls('url=monitor&method=GET&ip=127'), ['405 http://localhost/monitor/MonitorPooling'])
      t.equal((await listProfiles(app, 'limit=2')).length, 2)
      t.same(await urls('end=2000-01-01'), [], 'nothing before 2000')
      t.equal((await listProfiles(app, `start=${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}`)).length, 4)
    })

    t.test('the HAR of a search: the listing\'s profiles, each in full, through the engine\'s own searchHar', async t => {
      const app = await buildTestApp(t, await fresh(t))
      await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' })
      await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
      await app.inject({ url: '/robots.txt' })
      const listed = await listProfiles(app, 'method=post&limit=10')
      const har = await app.inject({ url: '/_profiler/empty/search/har?method=post&limit=10' })
      t.equal(har.statusCode, 200)
      const entries = (har.json() as { log: { entries: Array<{ request: { method: string, url: string }, response: { status: number } }> } }).log.entries
      t.same(entries.map(entry => `${entry.response.status} ${entry.request.url}`).sort(), listed.map(p => `${p.status} ${p.url}`).sort(), 'one entry per listed profile')
      t.ok(entries.every(entry => entry.request.method === 'POST'), 'the filter applied')
      t.same((await app.inject({ url: '/_profiler/empty/search/har?status_code=418' })).json().log.entries, [], 'no match: an empty HAR')
    })

    t.test('deployments: the field, an exact filter, a column once there are several', async t => {
      const store = await fresh(t)
      const a = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'A' })
      await a.inject({ url: '/from-a' })
      await a.profileStore.flush()
      const single = await a.inject({ url: '/_profiler/empty/search/results' })
      t.notMatch(single.body, '<th>Deployment</th>', 'one deployment: no column')
      const b = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'B' })
      await b.inject({ url: '/from-b' })
      await b.profileStore.flush()
      t.same((await listProfiles(a)).map(p => `${p.deployment} ${p.url}`), ['B http://localhost/from-b', 'A http://localhost/from-a'], 'one listing, both deployments')
      t.same((await listProfiles(b, 'deployment=A')).map(p => p.url), ['http://localhost/from-a'])
      t.same((await listProfiles(b, 'deployment=a')), [], 'the filter is exact')
      const html = await b.inject({ url: '/_profiler/empty/search/results?deployment=B' })
      t.match(html.body, '<th>Deployment</th>')
      t.match(html.body, /<td class="nowrap deployment">B<\/td>/)
      t.match(html.body, /id="deployment" name="deployment" value="B"/, 'the search form keeps it')
      const redirect = await b.inject({ url: '/_profiler/search?deployment=A' })
      t.match(redirect.headers.location, /deployment=A/, 'the search passes it on')
    })

    t.test('a token already stored is never overwritten: the new profile is rejected and counted', async t => {
      const store = await fresh(t)
      const a = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'A' }, undefined, { profiler: { tokenSource: () => 'c0ffee' } })
      await a.inject({ url: '/first' })
      await a.profileStore.flush()
      // A second instance that does not know the token yet (opened before it was stored elsewhere).
      const sequence = ['c0ffee', 'beef01']
      const b = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'B' }, undefined, { profiler: { tokenSource: () => sequence.shift() ?? 'beef02' } })
      b.profileStore.releaseToken('c0ffee')
      const res = await b.inject({ url: '/second' })
      t.equal(res.statusCode, 404, 'the request is answered as usual')
      t.equal(res.headers['x-debug-token'], 'c0ffee')
      await b.profileStore.flush()
      t.equal(b.profileStore.dropped, 1, 'the rejected profile is counted')
      t.match((await profileJson(b, 'c0ffee')), { url: 'http://localhost/first', deployment: 'A' }, 'the stored profile is untouched')
      await b.inject({ url: '/third' })
      t.same((await listProfiles(b)).map(p => p.token), ['beef01', 'c0ffee'], 'the next token is used and stored')
    })

    t.test('route statistics: the same lines from the rollups, with listing links that list exactly their requests', async t => {
      const store = await fresh(t)
      const a = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'A' })
      const b = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'B' })
      // Both instances count into the same rows.
      for (let i = 0; i < 3; i++) await a.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
      for (let i = 0; i < 2; i++) await b.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
      await a.inject({ url: '/robots.txt' })
      await b.inject({ url: '/.env' })
      await b.inject({ url: '/monitor/MonitorPooling' })
      await a.profileStore.flush()
      await b.profileStore.flush()
      const res = await a.inject({ url: '/_profiler/stats?window=1h', headers: JSON_ACCEPT })
      t.equal(res.statusCode, 200)
      const { routes } = res.json() as { routes: Array<{ route: string | null, method: string | null, status: number | null, count: number, statusClasses: Record<string, number>, maxMs: number, p50Ms: number, listing: string }> }
      const lines = routes.map(r => [r.route, r.method, r.status, r.count]).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))
      t.same(lines, [['/monitor/MonitorPooling', 'POST', null, 5], [null, null, 404, 2], [null, null, 405, 1]].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))))
      const poll = routes.find(r => r.route === '/monitor/MonitorPooling')
      t.match(poll, { statusClasses: { '2xx': 5, '4xx': 0 } })
      const polls = await listProfiles(a, 'method=POST&limit=100')
      t.equal(poll?.maxMs, Math.max(...polls.map(p => p.durationMs)), 'the max is exact')
      for (const r of routes) {
        const listed = await a.inject({ url: r.listing.replace('limit=10', 'limit=100'), headers: JSON_ACCEPT })
        t.equal(listed.json().results.length, r.count, `${r.listing} lists ${r.count}`)
      }
      t.same(routeFigures((await b.inject({ url: '/_profiler/stats?window=1h', headers: JSON_ACCEPT })).json().routes), routeFigures(routes), 'both instances see the same statistics')
    })

    t.test('previous and next profile', async t => {
      const app = await buildTestApp(t, await fresh(t))
      for (const path of ['/a', '/b', '/c']) await app.inject({ url: path })
      const [c, b, a] = (await listProfiles(app)).map(p => p.token)
      const page = async (token: string | undefined): Promise<string> => (await app.inject({ url: `/_profiler/${token ?? ''}?panel=router` })).body
      const middle = await page(b)
      t.match(middle, `<a href="/_profiler/${a ?? ''}?panel=router&amp;type=request" rel="prev" id="previous-profile">`)
      t.match(middle, `<a href="/_profiler/${c ?? ''}?panel=router&amp;type=request" rel="next" id="next-profile">`)
      t.match(await page(a), '<span class="none">&larr; Previous profile</span>', 'the oldest has no previous')
      t.match(await page(c), '<span class="none">Next profile &rarr;</span>', 'the newest has no next')
    })

    t.test('retention: count and age bounds', async t => {
      const app = await buildTestApp(t, { ...await fresh(t), PROFILER_MAX_PROFILES: '5', PROFILER_MAX_AGE: '60s' })
      const tokens: string[] = []
      for (let i = 0; i < 12; i++) tokens.push((await app.inject({ url: `/page-${i}` })).headers['x-debug-token'] as string)
      await app.profileStore.prune()
      t.same((await listProfiles(app)).map(p => p.token), tokens.slice(-5).reverse(), 'the five newest remain')
      t.equal(app.profileStore.count, 5)
      t.equal((await app.inject({ url: `/_profiler/${tokens[0] ?? ''}`, headers: JSON_ACCEPT })).statusCode, 404, 'a pruned token is gone, panels and all')
      await app.profileStore.prune(Date.now() + 61_000)
      t.same(await listProfiles(app), [], 'seen from 61 s later, all are expired')
      t.equal(app.profileStore.count, 0)
      t.ok(await app.profileStore.storeBytes() > 0, 'the store reports its size')
    })

    // SQLite's bytes are its file's pages: every table by construction.
    t.test('the store\'s bytes count every table the profiler writes (PROFILER_MAX_BYTES bounds them all), the alerts\' included', { skip: engine.name === 'sqlite' && 'the file holds them all' }, async t => {
      const env = await fresh(t)
      const app = await buildTestApp(t, env)
      for (let i = 0; i < 5; i++) await app.inject({ url: `/page-${i}` })
      await app.profileStore.flush()
      const target = storeTarget(env)
      if (target.engine !== 'postgres') return
      // 2 MB of alert deliveries: counted once the alerts' tables are part of the store's bytes.
      await queryOn(target.url, `INSERT INTO profiler_alert_deliveries (webhook, rule, state, created_ms, body, status, next_ms)
        SELECT 'w', 'r', 'firing', 0, repeat(md5(i::text), 64), 'done', 0 FROM generate_series(1, 1000) AS i`)
      const everyTable = async (): Promise<number> => Number((await queryOn(target.url, `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname NOT LIKE '%migrations'`))[0]?.bytes)
      t.equal(await app.profileStore.storeBytes(), await everyTable(), 'the bytes reported are those of every table in the store\'s schema')
    })

    t.test('a batch retried after its commit (its answer lost with the writer thread) is stored once and not counted as dropped', async t => {
      const app = await buildTestApp(t, await fresh(t))
      app.profileStore.reserveToken('again0')
      const profile = { id: app.profileStore.nextId(Date.now()), token: 'again0', parentToken: null, type: 'request' as const, ip: '127.0.0.1', method: 'GET', url: 'http://x/', statusCode: 200, durationMs: 1, route: null, panels: '{}' }
      t.ok(app.profileStore.enqueue(profile))
      await app.profileStore.flush()
      // The same profile handed over again, as the queue does when the writer's answer never came.
      t.ok(app.profileStore.enqueue(profile))
      await app.profileStore.flush()
      t.equal(app.profileStore.dropped, 0, 'not counted as a token clash')
      t.match(app.profileStore.healthSnapshot(), { state: 'ok', queued: 0 })
      t.equal((await listProfiles(app)).filter(listed => listed.token === 'again0').length, 1, 'stored once')
      const line = (await statsJson(app, '?window=1h')).routes.find(r => r.route === null && r.status === 200)
      t.match(line, { count: 1, kept: 1 }, 'and counted once in the statistics')
    })

    t.test('a batch of 1,201 profiles is stored whole, each panel text exactly as given (quotes, backslashes, braces, non-ASCII)', async t => {
      const env = await fresh(t)
      const writer = await openWriter(t, env, 10_000)
      // More rows than one PostgreSQL statement inserts into profile_data (a thousand).
      const startMs = Date.now()
      const batch = Array.from({ length: 1201 }, (_, i) => ({
        id: startMs * 1024 + i,
        token: `bulk${i}`,
        parentToken: null,
        type: 'request' as const,
        ip: '127.0.0.1',
        method: 'GET',
        url: `http://x/${i}`,
        statusCode: 200,
        durationMs: 1,
        route: null,
        panels: JSON.stringify({ request: { note: `"quoted" \\back\\slash {a,b} [${i}] é ☃ 🚀 \u0000`, n: i } })
      }))
      t.same(await writer.write(batch), { written: 1201, rejected: [] })
      const stored = await storedPanels(env)
      t.equal(stored.size, 1201, 'every profile has its data row')
      t.same(batch.filter(profile => stored.get(profile.token) !== profile.panels).map(profile => profile.token), [], 'each panel text as given')
    })

    t.test('statistics-only requests written twice with one stamp are counted once; a new stamp counts them; stamps below the lowest outstanding go', async t => {
      const env = await fresh(t)
      const writer = await openWriter(t, env, 1000)
      const startMs = Date.now()
      const requests = [
        { startMs, method: 'GET', route: '/stamped', statusCode: 200, durationMs: 3 },
        { startMs, method: 'GET', route: '/stamped', statusCode: 503, durationMs: 9 }
      ]
      const app = await buildTestApp(t, env)
      const counted = async (): Promise<unknown> => (await statsJson(app, '?window=1h')).routes.find(r => r.route === '/stamped')?.count
      await writer.write([], requests, { source: 'one', seq: 1, lowestOutstanding: 1 })
      // The same hand-over again, as the queue retries a batch whose answer was lost after its commit.
      await writer.write([], requests, { source: 'one', seq: 1, lowestOutstanding: 1 })
      t.equal(await counted(), 2, 'counted once')
      t.same(await statisticsStamps(env), ['one 1'])
      await writer.write([], requests, { source: 'one', seq: 2, lowestOutstanding: 2 })
      t.equal(await counted(), 4, 'a new stamp is counted')
      t.same(await statisticsStamps(env), ['one 2'], 'the stamp below the lowest outstanding one is gone')
      await writer.write([], requests, { source: 'two', seq: 1, lowestOutstanding: 1 })
      await writer.write([], requests, { source: 'one', seq: 2, lowestOutstanding: 2 })
      t.equal(await counted(), 6, 'another source has stamps of its own')
      t.same(await statisticsStamps(env), ['one 2', 'two 1'])
      await writer.write([], requests)
      t.equal(await counted(), 8, 'without a stamp, always counted')
      const writtenBy = Date.now()
      await writer.prune(startMs + STATISTICS_STAMP_MAX_AGE_MS - 60_000)
      t.same(await statisticsStamps(env), ['one 2', 'two 1'], 'retention keeps stamps younger than a day')
      await writer.prune(writtenBy + STATISTICS_STAMP_MAX_AGE_MS + 1)
      t.same(await statisticsStamps(env), [], 'and deletes older ones (sources that stopped)')
    })
  })
}
