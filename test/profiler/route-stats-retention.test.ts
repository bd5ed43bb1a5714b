// run-suite: shares a process
// The route statistics count requests, not stored profiles: on both engines, pruning profiles (by
// count, age or bytes) leaves them exactly as they were, and only their own bound
// (PROFILER_STATS_MAX_AGE; minute rows two days at most) deletes rollup rows.
import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { ProfileRecord } from '../../plugins/profiler/profile.js'
import { PERCENTILE_ERROR } from '../../plugins/profiler/stats/histogram.js'
import { buildTestApp } from '../helpers/app.js'
import { exactPercentile } from '../helpers/percentile.js'
import { queryOn } from '../helpers/postgres.js'
import { listProfiles, routeFigures, statsJson } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'

const engines = storeEngines(t)
const DAY_MS = 86_400_000

interface Sent { route: string, method: string, statusCode: number, durationMs: number }

/** Requests handed to the store as the recorder hands them, with chosen durations and statuses. */
function sendRequests (app: FastifyInstance, count: number, route = '/api/orders/:id', prefix = 'r'): Sent[] & { records: ProfileRecord[] } {
  const sent = Object.assign([] as Sent[], { records: [] as ProfileRecord[] })
  for (let i = 0; i < count; i++) {
    const token = `${prefix}${i.toString(16).padStart(5, '0')}`
    // Durations over three orders of magnitude; one status in five a 500.
    const request: Sent = { route, method: 'GET', statusCode: i % 5 === 0 ? 500 : 200, durationMs: ((i * 7919) % 4000 + 1) / 8 }
    app.profileStore.reserveToken(token)
    const record: ProfileRecord = {
      id: app.profileStore.nextId(Date.now()),
      token,
      parentToken: null,
      type: 'request',
      ip: '127.0.0.1',
      method: request.method,
      url: `http://localhost/api/orders/${i}?pad=${'x'.repeat(2000)}`,
      statusCode: request.statusCode,
      durationMs: request.durationMs,
      route: request.route,
      panels: JSON.stringify({ request: { note: 'y'.repeat(4000) } })
    }
    if (!app.profileStore.enqueue(record)) throw new Error(`${token} was not queued`)
    sent.push(request)
    sent.records.push(record)
  }
  return sent
}

/** The statistics line of `route` must be the exact figures of `sent` (percentiles within the histogram's error). */
async function expectExact (t: Test, app: FastifyInstance, sent: Sent[], what: string, window = '1h'): Promise<void> {
  const line = (await statsJson(app, `?window=${window}`)).routes.find(r => r.route === sent[0]?.route)
  const durations = sent.map(r => r.durationMs)
  t.match(line, {
    count: sent.length,
    statusClasses: { '2xx': sent.filter(r => r.statusCode === 200).length, '5xx': sent.filter(r => r.statusCode === 500).length },
    maxMs: Math.max(...durations)
  }, `${what}: count, status classes and max`)
  t.ok(Math.abs((line?.meanMs ?? 0) - durations.reduce((a, b) => a + b, 0) / durations.length) < 0.001, `${what}: mean`)
  for (const percent of [50, 95, 99]) {
    const exact = exactPercentile(durations, percent)
    const estimate = line?.[`p${percent}Ms`] as number
    t.ok(Math.abs(estimate - exact) <= exact * (PERCENTILE_ERROR + 1e-9) + 0.001, `${what}: p${percent} ${estimate} against ${exact}`)
  }
}

/** Rollup rows per span, read from the store itself (SQLite file or PostgreSQL database). */
async function rollupRows (env: Record<string, string>): Promise<{ minutes: number, hours: number }> {
  const sql = 'SELECT span_ms AS span, count(*) AS n FROM profile_route_stats GROUP BY span_ms'
  let rows: Array<Record<string, unknown>>
  if (env.PROFILER_DATABASE_URL !== undefined) {
    rows = await queryOn(env.PROFILER_DATABASE_URL, sql)
  } else {
    const db = new Database(env.PROFILER_DATABASE_PATH, { readonly: true })
    rows = db.prepare(sql).all() as Array<Record<string, unknown>>
    db.close()
  }
  const of = (span: number): number => Number(rows.find(row => Number(row.span) === span)?.n ?? 0)
  return { minutes: of(60_000), hours: of(3_600_000) }
}

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const { fresh } = engine

    t.test('the statistics are the exact figures of every request sent, and stay when the count and age bounds prune the profiles', async t => {
      const app = await buildTestApp(t, { ...await fresh(t), PROFILER_MAX_PROFILES: '5', PROFILER_MAX_AGE: '60s' })
      const sent = sendRequests(app, 60)
      // Real requests too: a route and misses, counted by status.
      for (let i = 0; i < 7; i++) await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
      for (let i = 0; i < 3; i++) await app.inject({ url: `/missing-${i}` })
      await app.profileStore.prune()
      t.equal((await listProfiles(app)).length, 5, 'the count bound pruned all but five profiles')
      await expectExact(t, app, sent, 'after the count bound')
      const lines = (await statsJson(app)).routes
      t.match(lines.find(r => r.route === '/monitor/MonitorPooling'), { method: 'POST', count: 7 })
      t.match(lines.find(r => r.route === null), { status: 404, count: 3 })
      await app.profileStore.prune(Date.now() + 61_000)
      t.same(await listProfiles(app), [], 'the age bound pruned every profile')
      await expectExact(t, app, sent, 'after the age bound')
      for (const window of ['24h', '7d', '30d']) await expectExact(t, app, sent, `the ${window} window`, window)
      t.same(routeFigures((await statsJson(app)).routes), routeFigures(lines), 'every line as it was')
    })

    t.test('the statistics stay when the byte bound prunes the profiles', async t => {
      const env = await fresh(t)
      const writer = await buildTestApp(t, env)
      const sent = sendRequests(writer, 100)
      await writer.profileStore.flush()
      const bytes = await writer.profileStore.storeBytes()
      // A second instance on the same store, bound to half of what it holds.
      const bounded = await buildTestApp(t, { ...env, PROFILER_MAX_BYTES: String(Math.floor(bytes / 2)) })
      await bounded.profileStore.prune()
      const left = (await listProfiles(bounded)).length
      t.ok(left < 100, `the byte bound pruned profiles: ${left} of 100 left`)
      await expectExact(t, bounded, sent, 'after the byte bound')
    })

    t.test('a batch retried after its commit is counted once; a profile rejected for its token is counted', async t => {
      const store = await fresh(t)
      const a = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'A' })
      const sent = sendRequests(a, 1)
      await a.profileStore.flush()
      // The same profile handed over again, as the queue does when the writer's answer never came.
      t.ok(a.profileStore.enqueue(sent.records[0] as ProfileRecord))
      await a.profileStore.flush()
      t.equal(a.profileStore.dropped, 0, 'stored once, not a token clash')
      // Another instance whose token source draws a token A holds: its request is rejected as a profile, counted as a request.
      const b = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'B' })
      b.profileStore.releaseToken('r00000')
      const second = sendRequests(b, 1)
      await b.profileStore.flush()
      t.equal(b.profileStore.dropped, 1, 'the profile is rejected')
      await expectExact(t, a, [...sent, ...second], 'one request from each instance')
    })

    t.test('PROFILER_STATS_MAX_AGE: older rollup rows are deleted by retention; minute rows after two days', async t => {
      const env = await fresh(t)
      const app = await buildTestApp(t, env)
      const sent = sendRequests(app, 10)
      await app.profileStore.prune()
      t.same(await rollupRows(env), { minutes: 1, hours: 1 })
      await app.profileStore.prune(Date.now() + 2 * DAY_MS + 120_000)
      t.same(await rollupRows(env), { minutes: 0, hours: 1 }, 'past two days: the minute rows go, the hours stay')
      // (24h: the window's first minutes, long before these requests, then whole hours.)
      await expectExact(t, app, sent, 'read from the hours', '24h')
      await app.profileStore.prune(Date.now() + 29 * DAY_MS)
      t.same(await rollupRows(env), { minutes: 0, hours: 1 }, 'the default bound is 30 days')
      await app.profileStore.prune(Date.now() + 30 * DAY_MS + 2 * 3_600_000)
      t.same(await rollupRows(env), { minutes: 0, hours: 0 }, 'past 30 days: the hours go too')
      t.same((await statsJson(app, '?window=7d')).routes, [])

      const short = await fresh(t)
      const bounded = await buildTestApp(t, { ...short, PROFILER_STATS_MAX_AGE: '2h' })
      sendRequests(bounded, 3)
      await bounded.profileStore.prune(Date.now() + 3_600_000)
      t.same(await rollupRows(short), { minutes: 1, hours: 1 }, 'within the bound, both stay')
      await bounded.profileStore.prune(Date.now() + 3 * 3_600_000 + 120_000)
      t.same(await rollupRows(short), { minutes: 0, hours: 0 }, 'past the bound (and the hour it started in), minutes and hours go')
    })
  })
}
