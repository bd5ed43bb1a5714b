// Route statistics seeded straight into a store, as the writer itself writes them: for `keys` route
// keys, a minute row for every minute of the last `minuteDays` and an hour row for every hour of the
// last `hourDays`, each with the counts and the encoded histogram of a busy period. One SQL
// statement per span (a recursive CTE on SQLite, generate_series on PostgreSQL), so that 100,000
// rows take well under a second.
import BetterSqlite3 from 'better-sqlite3'
import { encodeHistogram } from '../../plugins/profiler/stats/histogram.js'
import { addDelta, emptyValues, HOUR_MS, MINUTE_MS, rollupDeltas, type CountedRequest } from '../../plugins/profiler/stats/rollup.js'
import { queryOn } from './postgres.js'
import { storeTarget } from './store-engines.js'

const DAY_MS = 86_400_000

export interface SeededStatistics {
  keys: number
  /** Days of minute rows (the writer keeps two) and of hour rows (PROFILER_STATS_MAX_AGE, 30 by default). */
  minuteDays: number
  hourDays: number
  deployment: string
  nowMs: number
  /** Requests a key saw a minute (60: a busy route; fewer buckets in its histograms when fewer). */
  perMinute?: number
}

/** The values of a period in which a route saw `requests` requests over durations of three orders of magnitude, as the writer's own rollup code adds them. */
function busyPeriod (requests: number) {
  const counted: CountedRequest[] = []
  for (let i = 0; i < requests; i++) {
    counted.push({ startMs: 0, method: 'GET', route: '/r', statusCode: i % 20 === 0 ? 500 : 200, durationMs: ((i * 7919) % 4000 + 1) / 8, deployment: 'd', kept: true })
  }
  const [row] = rollupDeltas(counted)
  const values = addDelta(emptyValues(), row ?? emptyValues())
  return { ...values, histogram: encodeHistogram(values.histogram).toString('hex') }
}

/** Inserts the rows; returns how many. The store must exist (migrated: an app opened it once). */
export async function seedStatistics (env: Record<string, string>, seed: SeededStatistics): Promise<number> {
  const target = storeTarget(env)
  const perMinute = seed.perMinute ?? 60
  const minute = busyPeriod(perMinute)
  const hour = busyPeriod(perMinute * 60)
  const spans = [
    { spanMs: MINUTE_MS, fromMs: Math.floor((seed.nowMs - seed.minuteDays * DAY_MS) / MINUTE_MS) * MINUTE_MS, values: minute },
    { spanMs: HOUR_MS, fromMs: Math.floor((seed.nowMs - seed.hourDays * DAY_MS) / HOUR_MS) * HOUR_MS, values: hour }
  ]
  const toMs = seed.nowMs
  let rows = 0
  if (target.engine === 'sqlite') {
    const db = new BetterSqlite3(target.path)
    try {
      for (const { spanMs, fromMs, values } of spans) {
        const [c1, c2, c3, c4, c5] = values.classes
        rows += db.prepare(`WITH RECURSIVE k (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ${seed.keys}),
          p (t) AS (SELECT ${fromMs} UNION ALL SELECT t + ${spanMs} FROM p WHERE t + ${spanMs} < ${toMs})
          INSERT INTO profile_route_stats (span_ms, start_ms, deployment, method, route, status, count, kept,
            status_1xx, status_2xx, status_3xx, status_4xx, status_5xx, sum_ms, max_ms, histogram)
          SELECT ${spanMs}, t, ?, 'GET', '/api/v1/resource-' || i || '/items/:itemId', 0, ${values.count}, ${values.kept},
            ${c1}, ${c2}, ${c3}, ${c4}, ${c5}, ${values.sumMs}, ${values.maxMs}, X'${values.histogram}' FROM k, p`).run(seed.deployment).changes
      }
    } finally {
      db.close()
    }
    return rows
  }
  for (const { spanMs, fromMs, values } of spans) {
    const [c1, c2, c3, c4, c5] = values.classes
    const inserted = await queryOn(target.url, `WITH ins AS (INSERT INTO profile_route_stats (span_ms, start_ms, deployment, method, route, status, count, kept,
        status_1xx, status_2xx, status_3xx, status_4xx, status_5xx, sum_ms, max_ms, histogram)
      SELECT ${spanMs}, t, '${seed.deployment.replaceAll("'", "''")}', 'GET', '/api/v1/resource-' || i || '/items/:itemId', 0, ${values.count}, ${values.kept},
        ${c1}, ${c2}, ${c3}, ${c4}, ${c5}, ${values.sumMs}, ${values.maxMs}, decode('${values.histogram}', 'hex')
      FROM generate_series(0, ${seed.keys - 1}) AS i, generate_series(${fromMs}::bigint, ${toMs - 1}::bigint, ${spanMs}::bigint) AS t RETURNING 1)
      SELECT count(*)::int AS n FROM ins`)
    rows += Number(inserted[0]?.n ?? 0)
  }
  await queryOn(target.url, 'VACUUM ANALYZE profile_route_stats')
  return rows
}

/** Bytes the store's statistics take, as each engine measures a table: SQLite's pages of its b-trees, PostgreSQL's total relation size. */
export async function statisticsBytes (env: Record<string, string>): Promise<number> {
  const target = storeTarget(env)
  if (target.engine === 'postgres') {
    const rows = await queryOn(target.url, "SELECT pg_total_relation_size('profile_route_stats')::bigint AS bytes")
    return Number(rows[0]?.bytes ?? 0)
  }
  const db = new BetterSqlite3(target.path, { readonly: true })
  try {
    return db.prepare("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = 'profile_route_stats'").pluck().get() as number
  } finally {
    db.close()
  }
}

/** Rows of the statistics table. */
export async function statisticsRows (env: Record<string, string>): Promise<number> {
  const target = storeTarget(env)
  if (target.engine === 'postgres') return Number((await queryOn(target.url, 'SELECT count(*)::int AS n FROM profile_route_stats'))[0]?.n ?? 0)
  const db = new BetterSqlite3(target.path, { readonly: true })
  try {
    return db.prepare('SELECT count(*) FROM profile_route_stats').pluck().get() as number
  } finally {
    db.close()
  }
}

/** The start of the oldest hour row the statistics hold (ms). */
export async function oldestHourRow (env: Record<string, string>): Promise<number> {
  const target = storeTarget(env)
  const sql = `SELECT min(start_ms) AS ms FROM profile_route_stats WHERE span_ms = ${HOUR_MS}`
  if (target.engine === 'postgres') return Number((await queryOn(target.url, sql))[0]?.ms)
  const db = new BetterSqlite3(target.path, { readonly: true })
  try {
    return db.prepare(sql).pluck().get() as number
  } finally {
    db.close()
  }
}
