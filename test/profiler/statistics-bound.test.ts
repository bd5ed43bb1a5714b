// The route statistics live inside PROFILER_MAX_BYTES (issue 37, item 1), on both engines: they get
// a share of the bound, are coarsened (minute rows first, then the oldest hours) when over it, and
// never make pruning delete profiles. The scenario, scaled to run in seconds: a store whose
// statistics alone hold several times the whole bound (30 days of the rows the writer writes, for
// the keys of a service's routes), restarted at a 5 MiB bound, then traffic.
import t from 'tap'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { STATISTICS_SHARE } from '../../plugins/profiler/engine/retention-policy.js'
import { buildTestApp } from '../helpers/app.js'
import { listProfiles, profilerHtml, statsJson } from '../helpers/profiler.js'
import { oldestHourRow, seedStatistics, statisticsBytes, statisticsRows } from '../helpers/seeded-statistics.js'
import { storeEngines, storeTarget } from '../helpers/store-engines.js'

const engines = storeEngines(t)

/**
 * Creates (migrates) a store as the writer opens it, without an app: on a cluster just started,
 * under load, the first app's migrations outlasted Fastify's plugin timeout.
 */
async function createStore (env: Record<string, string>): Promise<void> {
  const limits = { maxProfiles: 1000, maxAgeMs: 86_400_000, maxBytes: 1024 ** 3, statsMaxAgeMs: 30 * 86_400_000 }
  // Beside CI's CPU hog a first connection to the new cluster outlasted the pool's 5 s (its backend's
  // start, the password's hashing): tried again until the store opens, for a minute at most.
  const deadline = Date.now() + 60_000
  for (;;) {
    try {
      const writer = await openStoreWriter(storeTarget(env), 'seeded', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
      await writer.close()
      return
    } catch (err) {
      if (Date.now() > deadline || !/connection timeout|Connection terminated/.test((err as Error).message)) throw err
    }
  }
}
const BOUND = 5 * 1024 * 1024
const REQUESTS = 1500

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    t.test('statistics larger than the whole bound: the profiles stay, the statistics are coarsened into their share', async t => {
      const env = { ...await engine.fresh(t), PROFILER_DEPLOYMENT: 'seeded' }
      // The store is created (migrated) by a first writer, then filled as 30 days of traffic on 28 keys would have.
      await createStore(env)
      const rows = await seedStatistics(env, { keys: 28, minuteDays: 2, hourDays: 30, deployment: 'seeded', nowMs: Date.now() })
      const seededBytes = await statisticsBytes(env)
      t.comment(`${engine.name}: ${rows} statistics rows seeded, ${seededBytes} bytes (${Math.round(seededBytes / 28)} a key)`)
      t.ok(seededBytes > 4 * BOUND, 'the statistics alone hold several times the bound')

      const app = await buildTestApp(t, { ...env, PROFILER_MAX_BYTES: String(BOUND) })
      let lastToken = ''
      const tokens: string[] = []
      for (let i = 0; i < REQUESTS; i++) {
        const res = await app.inject({ url: `/missing-${i}` })
        lastToken = res.headers['x-debug-token'] as string
        tokens.push(lastToken)
      }
      await app.profileStore.prune()

      const kept = await listProfiles(app, 'limit=100')
      t.equal(kept.length, 100, 'the listing is full')
      t.equal(kept[0]?.token, lastToken, 'the newest profile is listed')
      const profile = await app.inject({ url: `/_profiler/${lastToken}`, headers: { accept: 'application/json' } })
      t.equal(profile.statusCode, 200, "the last answer's X-Debug-Token link works")
      const bytes = await app.profileStore.storeBytes()
      t.ok(bytes <= BOUND * 1.1, `the store holds ${bytes} bytes, within 10% of ${BOUND}`)
      const statsBytes = await statisticsBytes(env)
      t.comment(`statistics left: ${await statisticsRows(env)} rows, ${statsBytes} bytes`)
      t.ok(statsBytes <= BOUND * STATISTICS_SHARE, `the statistics hold ${statsBytes} bytes, within their share (${BOUND * STATISTICS_SHARE})`)
      // What fits: the profiles' part of the bound (its 90% less the statistics' share at most) at the bytes a profile takes now.
      const held = app.profileStore.count
      const fits = Math.floor((BOUND * 0.9 - Math.min(statsBytes, BOUND * STATISTICS_SHARE)) / ((bytes - statsBytes) / held))
      t.ok(held >= Math.min(REQUESTS, fits) / 2, `${held} of ${REQUESTS} profiles held, ${fits} fit: above the floor (half of what fits)`)

      const listing = await app.inject({ url: '/_profiler/empty/search/results?limit=1', headers: { accept: 'application/json' } })
      t.match(listing.json(), { store: { state: 'ok', dropped: 0 } }, 'the bound holds: the listing says ok')
      t.comment(JSON.stringify(listing.json().store))
      // The requests of this run are all counted (the current hour's rows are never coarsened).
      const line = (await statsJson(app, '?window=1h')).routes.find(r => r.status === 404)
      t.equal(line?.count, REQUESTS, 'every request is counted in the statistics')
    })

    t.test('30 days of hour rows for 300 route keys (the issue\'s scenario): the bound holds, the profiles stay above the floor', async t => {
      const env = { ...await engine.fresh(t), PROFILER_DEPLOYMENT: 'seeded' }
      await createStore(env)
      // Scaled to run in seconds: a route a minute each (small histograms), the last hour of minute rows.
      const rows = await seedStatistics(env, { keys: 300, minuteDays: 1 / 24, hourDays: 30, deployment: 'seeded', nowMs: Date.now(), perMinute: 1 })
      const seededBytes = await statisticsBytes(env)
      t.comment(`${engine.name}: ${rows} rows for 300 keys, ${seededBytes} bytes (${Math.round(seededBytes / 300)} a key)`)
      const bound = 8 * 1024 * 1024
      t.ok(seededBytes > bound, 'the statistics alone hold more than the bound')
      const app = await buildTestApp(t, { ...env, PROFILER_MAX_BYTES: String(bound) })
      for (let i = 0; i < 600; i++) await app.inject({ url: `/missing-${i}` })
      await app.profileStore.prune()
      const bytes = await app.profileStore.storeBytes()
      const statsBytes = await statisticsBytes(env)
      t.comment(`statistics left: ${await statisticsRows(env)} rows, ${statsBytes} bytes; store ${bytes} bytes, ${app.profileStore.count} profiles`)
      t.ok(bytes <= bound * 1.1, `the store holds ${bytes} bytes, within 10% of ${bound}`)
      t.ok(statsBytes <= bound * STATISTICS_SHARE, `the statistics hold ${statsBytes} bytes, within their share`)
      t.equal(app.profileStore.count, 600, 'every profile stays: they fit the profiles\' part')
      const week = await statsJson(app, '?window=7d')
      t.ok(week.routes.length > 1, `the 7d window still has the seeded routes' hours (${week.routes.length} lines)`)
      // The oldest hours went to keep the share: the window says from when it holds any, not 7 days.
      const oldestHour = await oldestHourRow(env)
      t.match(week, { givenUp: { from: new Date(oldestHour).toISOString() }, from: new Date(oldestHour).toISOString() },
        `the 7d window says its hours start at ${new Date(oldestHour).toISOString()}, where those left start`)
      t.ok(oldestHour > Date.now() - 7 * 86_400_000, 'later than the window\'s start')
      t.match(await profilerHtml(app, '/stats?window=7d'), /id="stats-given-up">The statistics gave up their oldest hours/, 'the page says so')
      t.match((await app.inject({ url: '/_profiler/empty/search/results?limit=1', headers: { accept: 'application/json' } })).json(), { store: { state: 'ok' } })
    })

    t.test('the current hour\'s statistics alone over the bound: the listing says the bound cannot be kept, and why', async t => {
      const env = { ...await engine.fresh(t), PROFILER_DEPLOYMENT: 'seeded' }
      await createStore(env)
      // 3,000 keys seen this hour and the one before (hour rows only): the current hour is never coarsened.
      await seedStatistics(env, { keys: 3000, minuteDays: 0, hourDays: 1 / 24, deployment: 'seeded', nowMs: Date.now() })
      const bound = 1024 * 1024
      const app = await buildTestApp(t, { ...env, PROFILER_MAX_BYTES: String(bound) })
      const token = (await app.inject({ url: '/missing' })).headers['x-debug-token'] as string
      await app.profileStore.prune()
      const listing = (await app.inject({ url: '/_profiler/empty/search/results?limit=1', headers: { accept: 'application/json' } })).json()
      t.match(listing.store, { state: 'over-bound', since: String, reason: /route statistics take [\d.]+ MiB, over their share \(25%\)/ }, `the listing says why: ${String(listing.store.reason)}`)
      t.match(await profilerHtml(app, '/empty/search/results'), /The profile store is over its byte bound since [^<]*the route statistics take/, 'and so does the page')
      t.equal((await app.inject({ url: `/_profiler/${token}`, headers: { accept: 'application/json' } })).statusCode, 200, 'the profile is kept')
      t.ok(await statisticsRows(env) >= 3000, 'the current hour\'s rows stay')

      // The statistics grow (9,000 more keys this hour): the reason tells the bytes held now, not those of when it was first told.
      const heldMiB = (reason: unknown): number => Number(/the store holds ([\d.]+) MiB/.exec(String(reason))?.[1])
      await seedStatistics(env, { keys: 9000, minuteDays: 0, hourDays: 1 / 24, deployment: 'seeded-2', nowMs: Date.now() })
      await app.profileStore.prune()
      const again = (await app.inject({ url: '/_profiler/empty/search/results?limit=1', headers: { accept: 'application/json' } })).json()
      const stored = await app.profileStore.storeBytes() / 1024 / 1024
      t.ok(Math.abs(heldMiB(again.store.reason) - stored) <= stored * 0.1, `the figures follow the store (${stored.toFixed(1)} MiB now): ${String(again.store.reason)}`)
      t.equal(again.store.since, listing.store.since, 'over the bound since the same time')
    })
  })
}
