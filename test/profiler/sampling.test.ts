// run-suite: shares a process
// Sampling with keep-rules (issue #24), on both engines: at PROFILER_SAMPLE=0.01 every 500, every
// exception, every slow request and every request forced with the secret is kept; the others leave
// no profile and no token header, and still count in the route statistics (requests seen, kept).
import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { DEFAULT_STORE_OPTIONS } from '../../plugins/profiler/runtime/profile-store.js'
import { buildTestApp } from '../helpers/app.js'
import { queryOn } from '../helpers/postgres.js'
import { listProfiles, profileJson, profilerHtml, statsJson } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'
import { waitFor } from '../helpers/wait-for.js'

const engines = storeEngines(t)
const SECRET = 'sampling-secret-0123456789'
const SLOW_MS = 50

/** Exactly one draw in a hundred under 0.01 (the first, the 101st, ...): a 1% sample, deterministic. */
function onePercent (): () => number {
  let draws = 0
  return () => (draws++ % 100 === 0 ? 0 : 0.5)
}

/** Test routes: an answer, an exception (500), a handler slower than the keep threshold. */
function testRoutes (app: FastifyInstance): void {
  app.get('/t/ok', async () => ({ ok: true }))
  app.get('/t/fail', async () => { throw new Error('the handler failed') })
  app.get('/t/slow', async () => {
    // The handler itself is slow: that is what the keep-rule is about.
    await sleep(SLOW_MS + 10)
    return { slow: true }
  })
  // Slow with a body: its time counts from the body's end (issue #37), which is noted for it.
  app.post('/t/slow-body', async request => {
    await sleep(SLOW_MS + 10)
    return { received: request.body }
  })
}

async function sampledApp (t: Test, env: Record<string, string>, random: () => number, secret: string | null = SECRET): Promise<FastifyInstance> {
  return await buildTestApp(t, { ...env, PROFILER_SAMPLE: '0.01', PROFILER_KEEP_SLOWER_THAN: `${SLOW_MS}ms`, ...(secret === null ? {} : { PROFILER_SECRET: secret }) },
    testRoutes, { profiler: { sampleRandom: random } })
}

/** Every byte of the store that could hold a value in clear: the SQLite file and its WAL, or every PostgreSQL table's rows as text. */
async function storeText (env: Record<string, string>): Promise<string> {
  if (env.PROFILER_DATABASE_URL !== undefined) {
    const tables = await queryOn(env.PROFILER_DATABASE_URL, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    let text = ''
    for (const { tablename } of tables) text += JSON.stringify(await queryOn(env.PROFILER_DATABASE_URL, `SELECT * FROM "${String(tablename)}"`))
    return text
  }
  const db = new Database(env.PROFILER_DATABASE_PATH, { readonly: true })
  let text = ''
  for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>) {
    text += JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all())
  }
  db.close()
  return text
}

/** The requests the statistics count for /t/ok over the last hour, read as a page reads them (nothing flushed). */
async function countedOk (app: FastifyInstance): Promise<number> {
  return (await app.profileStore.routeStats(Date.now(), 3_600_000)).routes.find(line => line.route === '/t/ok')?.count ?? 0
}

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    t.test('a 1% sample keeps every 500, exception, slow and forced request; the statistics count every request', async t => {
      const app = await sampledApp(t, await engine.fresh(t), onePercent())
      const tokens: Record<string, number> = {}
      const answeredWithToken = new Set<string>()
      const send = async (url: string, headers: Record<string, string> = {}): Promise<void> => {
        const res = await app.inject({ url, headers })
        const token = res.headers['x-debug-token']
        if (token === undefined) t.equal(res.headers['x-debug-token-link'], undefined, `${url}: a response not kept carries no token link either`)
        else answeredWithToken.add(String(token))
        tokens[url] = (tokens[url] ?? 0) + (token === undefined ? 0 : 1)
      }
      for (let i = 0; i < 300; i++) await send('/t/ok')
      for (let i = 0; i < 20; i++) await send('/t/fail')
      for (let i = 0; i < 5; i++) await send('/t/slow')
      for (let i = 0; i < 40; i++) await send('/t/missing')
      for (let i = 0; i < 4; i++) await send('/t/ok?forced', { 'x-profiler-keep': SECRET })
      for (let i = 0; i < 3; i++) {
        const res = await app.inject({ method: 'POST', url: '/t/slow-body', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ i }) })
        t.type(res.headers['x-debug-token'], 'string', 'a slow request with a body is kept: its time counts from the body\'s end')
        answeredWithToken.add(String(res.headers['x-debug-token']))
      }
      await app.profileStore.flush()

      t.equal(tokens['/t/fail'], 20, 'every 500 carries a token')
      t.equal(tokens['/t/slow'], 5, 'every slow request carries a token')
      t.equal(tokens['/t/ok?forced'], 4, 'every forced request carries a token')
      // One in a hundred drawn; one more only if it was slow on a loaded machine (kept by the rule).
      t.ok((tokens['/t/ok'] ?? 0) >= 3 && (tokens['/t/ok'] ?? 0) < 10, `one in a hundred of the rest: the sample (${String(tokens['/t/ok'])})`)

      const listed = await listProfiles(app)
      const of = (route: string): number => listed.filter(p => new URL(p.url).pathname + new URL(p.url).search === route).length
      // As for /t/ok: one more only for a 404 the slow rule kept on a loaded machine.
      const missingStored = listed.filter(p => new URL(p.url).pathname === '/t/missing')
      const missingSlow = missingStored.filter(p => p.durationMs > SLOW_MS).length
      t.ok((tokens['/t/missing'] ?? 0) <= 1 + missingSlow, `404s are sampled like the rest (${String(tokens['/t/missing'])}, ${missingSlow} slow)`)
      t.ok(missingStored.length - missingSlow <= 1, 'and no other 404 stored but slow ones')
      t.equal(of('/t/fail'), 20, 'every 500 stored')
      t.equal(of('/t/slow'), 5, 'every slow request stored')
      t.equal(of('/t/ok?forced'), 4, 'every forced request stored')
      // What is kept is decided before the answer leaves (issue #37: the time a client takes to
      // read it is not the service's): nothing is stored that went without a token.
      const okStored = listed.filter(p => new URL(p.url).pathname + new URL(p.url).search === '/t/ok')
      t.equal(okStored.length, tokens['/t/ok'], 'the sampled ones stored')
      t.ok(listed.every(p => answeredWithToken.has(p.token)), 'and every stored profile was answered with its token')

      const lines = (await statsJson(app)).routes
      t.match(lines.find(r => r.route === '/t/ok'), { method: 'GET', count: 304, kept: okStored.length + 4, statusClasses: { '2xx': 304 } }, 'every request counted, the kept ones apart')
      t.match(lines.find(r => r.route === '/t/fail'), { count: 20, kept: 20, statusClasses: { '5xx': 20 } })
      const slow = lines.find(r => r.route === '/t/slow')
      t.match(slow, { count: 5, kept: 5 })
      t.ok(slow?.p50Ms >= SLOW_MS, `the slow route's durations counted: p50 ${String(slow?.p50Ms)}`)
      t.match(lines.find(r => r.route === null && r.status === 404), { count: 40, kept: missingStored.length }, 'unmatched requests counted too')
      const ok = lines.find(r => r.route === '/t/ok')
      const keptDurations = listed.filter(p => p.url.includes('/t/ok')).map(p => p.durationMs)
      t.ok(ok?.meanMs > 0 && ok?.maxMs >= Math.max(...keptDurations), 'the sampled route\'s durations counted')

      t.match(await profilerHtml(app, '/empty/search/results?limit=10'), 'Profiles kept by this instance: 1% of requests, and every error and slow request (over 50.0 ms)', 'the listing says what is kept')
      t.match(await profilerHtml(app, `/${listed[0]?.token ?? ''}`), 'Profiles kept by this instance: 1% of requests, and every error and slow request', 'each profile page says it')
      t.match(await profilerHtml(app, '/stats'), '<th class="num">Kept</th>', 'the statistics page has a Kept column')
    })

    t.test('requests left out reach the statistics on their own, without a flush, once the first has waited statisticsDelayMs; a kept profile does not wait for them', async t => {
      const delayMs = 3000
      const app = await buildTestApp(t, { ...await engine.fresh(t), PROFILER_SAMPLE: '0' }, testRoutes, { profiler: { store: { statisticsDelayMs: delayMs } } })
      const firstAt = Date.now()
      for (let i = 0; i < 30; i++) await app.inject({ url: '/t/ok' })
      const failed = await app.inject({ url: '/t/fail' })
      t.equal(failed.statusCode, 500)
      // Nothing is flushed here: the store is read as a page would read it.
      await waitFor(async () => (await app.profileStore.search({ type: 'request', limit: 10 })).length > 0,
        { timeoutMs: 30_000, intervalMs: 20, what: 'the kept profile of /t/fail to be stored (no flush)' })
      // The clock is read once the count is: the statistics are handed over no sooner than
      // delayMs after the first request (firstAt or later), so a read that ended before then saw none.
      const counted = await countedOk(app)
      const readAfterMs = Date.now() - firstAt
      if (readAfterMs < delayMs) t.equal(counted, 0, `the profile was stored and the count read by ${readAfterMs} ms, the requests left out not yet counted`)
      else t.comment(`the machine was too slow to read the count before the statistics were due (${readAfterMs} ms)`)
      // Due delayMs (3 s) after the first request; 30 s leaves a loaded machine ample room.
      await waitFor(async () => await countedOk(app) >= 30,
        { timeoutMs: 30_000, intervalMs: 50, what: `the 30 requests left out to be counted without a flush (due ${delayMs} ms after the first)` })
      t.ok(Date.now() - firstAt >= delayMs, 'counted once due, not before')
      t.equal(await countedOk(app), 30, 'every request counted, without a flush')
    })

    t.test('a hand-over\'s worth of requests left out (10,000; 500 here) are handed over at once, whatever the delay; the rest after them, none twice', async t => {
      t.equal(DEFAULT_STORE_OPTIONS.statisticsPerBatch, 10_000, 'a hand-over holds 10,000 statistics-only requests')
      // A delay no test waits for: only the count can have them handed over. At a hand-over of 500
      // (the store option the 10,000 is the default of), as many requests as it takes, not 20 times more.
      const perBatch = 500
      const app = await buildTestApp(t, { ...await engine.fresh(t), PROFILER_SAMPLE: '0' }, testRoutes, { profiler: { store: { statisticsDelayMs: 600_000, statisticsPerBatch: perBatch } } })
      const sent = perBatch + 5
      for (let i = 0; i < sent; i += 50) await Promise.all(Array.from({ length: Math.min(50, sent - i) }, async () => await app.inject({ url: '/t/ok' })))
      await waitFor(async () => await countedOk(app) >= perBatch, { timeoutMs: 60_000, intervalMs: 50, what: `the first ${perBatch} counted` })
      t.equal(await countedOk(app), perBatch, `the first ${perBatch} counted without a flush, the rest still waiting`)
      await app.profileStore.flush()
      t.equal(await countedOk(app), sent, 'the rest counted with the flush, none twice')
    })

    t.test('the keep header forces a request only with the secret, which is never stored', async t => {
      const env = await engine.fresh(t)
      // No draw keeps anything: only the rules do.
      const app = await sampledApp(t, env, () => 0.99)
      const right = await app.inject({ url: '/t/ok', headers: { 'x-profiler-keep': SECRET } })
      const wrong = await app.inject({ url: '/t/ok', headers: { 'x-profiler-keep': `${SECRET}x` } })
      const short = await app.inject({ url: '/t/ok', headers: { 'x-profiler-keep': 'x' } })
      const none = await app.inject({ url: '/t/ok' })
      t.type(right.headers['x-debug-token'], 'string', 'the secret forces it')
      for (const [what, res] of [['a wrong secret', wrong], ['a short value', short], ['no header', none]] as const) {
        t.equal(res.headers['x-debug-token'], undefined, `${what} does not force it`)
      }
      const stored = await profileJson(app, String(right.headers['x-debug-token']), '?panel=request')
      t.equal(stored.panels.request.requestHeaders['x-profiler-keep'], '[redacted]', 'the header is redacted in the profile')
      t.equal((await listProfiles(app)).length, 1, 'only the forced request is stored')
      t.match((await statsJson(app)).routes.find(r => r.route === '/t/ok'), { count: 4, kept: 1 })
      t.notOk((await storeText(env)).includes(SECRET), 'the secret is nowhere in the store')
    })

    t.test('without a secret the header does nothing; at PROFILER_SAMPLE=1 every request is kept', async t => {
      const open = await sampledApp(t, await engine.fresh(t), () => 0.99, null)
      const res = await open.inject({ url: '/t/ok', headers: { 'x-profiler-keep': 'anything-at-all-here' } })
      t.equal(res.headers['x-debug-token'], undefined, 'no secret: not forced')
      const all = await buildTestApp(t, await engine.fresh(t), testRoutes)
      for (let i = 0; i < 5; i++) t.type((await all.inject({ url: '/t/ok' })).headers['x-debug-token'], 'string')
      t.match((await statsJson(all)).routes.find(r => r.route === '/t/ok'), { count: 5, kept: 5 })
      t.match(await profilerHtml(all, '/empty/search/results?limit=10'), 'Profiles kept by this instance: every request')
    })
  })
}
