import type pg from 'pg'
import { statisticsCoarsening } from '../retention-policy.js'
import { prepared } from './prepared.js'
import { addDelta, MINUTE_MS, expiredRollups, HOUR_MS, fromStoredValues, rollupDeltas, toStoredValues, type CountedRequest, type RollupKey, type StoredRollupRow } from '../../stats/rollup.js'

/** The rollup columns, aliased as StoredRollupRow names them (what the writer reads back). */
const ROLLUP_COLUMNS = `span_ms AS "spanMs", start_ms AS "startMs", deployment, method, route, status, count, kept,
  status_1xx AS c1, status_2xx AS c2, status_3xx AS c3, status_4xx AS c4, status_5xx AS c5, sum_ms AS "sumMs", max_ms AS "maxMs", histogram`
const KEY_COLUMNS = 'span_ms, start_ms, deployment, method, route, status'
const KEY_TYPES = '$1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::smallint[]'

const keyOf = (row: RollupKey): string => JSON.stringify([row.spanMs, row.startMs, row.deployment, row.method, row.route, row.status])
const keyArrays = (rows: RollupKey[]) => [rows.map(r => r.spanMs), rows.map(r => r.startMs), rows.map(r => r.deployment), rows.map(r => r.method), rows.map(r => r.route), rows.map(r => r.status)]

/** The rows of these keys, locked: a missing one is made empty (count 0) first. */
const LOCK_ROWS = prepared('profiler_lock_rollups', `INSERT INTO profile_route_stats
    (${KEY_COLUMNS}, count, kept, status_1xx, status_2xx, status_3xx, status_4xx, status_5xx, sum_ms, max_ms, histogram)
  SELECT k.*, 0, 0, 0, 0, 0, 0, 0, 0, 0, ''::bytea FROM unnest(${KEY_TYPES}) AS k
  ON CONFLICT (${KEY_COLUMNS}) DO UPDATE SET count = profile_route_stats.count
  RETURNING ${ROLLUP_COLUMNS}`)
/** The locked rows' new values. */
const WRITE_ROWS = prepared('profiler_write_rollups', `UPDATE profile_route_stats r SET count = v.count, kept = v.kept, status_1xx = v.c1, status_2xx = v.c2, status_3xx = v.c3,
    status_4xx = v.c4, status_5xx = v.c5, sum_ms = v.sum_ms, max_ms = v.max_ms, histogram = v.histogram
  FROM unnest(${KEY_TYPES}, $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::float8[], $14::float8[], $15::bytea[], $16::bigint[])
    AS v (span_ms, start_ms, deployment, method, route, status, count, c1, c2, c3, c4, c5, sum_ms, max_ms, histogram, kept)
  WHERE (r.span_ms, r.start_ms, r.deployment, r.method, r.route, r.status) = (v.span_ms, v.start_ms, v.deployment, v.method, v.route, v.status)`)

/**
 * Adds recorded requests to their route-statistics rows, inside the caller's transaction: the same
 * rows and arithmetic as on SQLite (stats/rollup.ts). Several instances write the same rows: each
 * row is locked (upserted) before it is read, in one statement and in one order, and written back
 * before the transaction ends.
 */
export async function addToRollups (client: pg.PoolClient, requests: CountedRequest[]): Promise<void> {
  const deltas = rollupDeltas(requests).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1))
  if (deltas.length === 0) return
  const keys = keyArrays(deltas)
  // A missing row starts empty (count 0); an existing one is locked as it is read.
  const { rows } = await client.query<StoredRollupRow>(LOCK_ROWS(keys))
  const stored = new Map(rows.map(row => [keyOf(row), fromStoredValues(row)]))
  const updated: StoredRollupRow[] = deltas.map(delta => {
    const current = stored.get(keyOf(delta))
    if (current === undefined) throw new Error(`route statistics: row ${keyOf(delta)} was not returned`)
    const key = { spanMs: delta.spanMs, startMs: delta.startMs, deployment: delta.deployment, method: delta.method, route: delta.route, status: delta.status }
    return { ...key, ...toStoredValues(addDelta(current, delta)) }
  })
  await client.query(WRITE_ROWS([
    ...keyArrays(updated),
    updated.map(r => r.count), updated.map(r => r.c1), updated.map(r => r.c2), updated.map(r => r.c3), updated.map(r => r.c4), updated.map(r => r.c5),
    updated.map(r => r.sumMs), updated.map(r => r.maxMs), updated.map(r => Buffer.from(r.histogram)), updated.map(r => r.kept)
  ]))
}

/**
 * Deletes the oldest whole periods of the statistics, about `limit` rows, in the order coarsening
 * gives (statisticsCoarsening), as on SQLite; returns how many went (0: nothing is left that may go).
 */
export async function coarsenStatistics (client: pg.PoolClient, nowMs: number, limit: number): Promise<number> {
  for (const { spanMs, beforeMs } of statisticsCoarsening(nowMs)) {
    const { rows } = await client.query<{ through: number | null, deleted: number }>(`WITH gone AS (DELETE FROM profile_route_stats WHERE span_ms = $1 AND start_ms <= coalesce(
      (SELECT start_ms FROM profile_route_stats WHERE span_ms = $1 AND start_ms < $2 ORDER BY start_ms LIMIT 1 OFFSET $3), $2::bigint - 1) RETURNING start_ms)
      SELECT max(start_ms) AS through, count(*)::int AS deleted FROM gone`, [spanMs, beforeMs, limit - 1])
    const { through, deleted } = rows[0] ?? { through: null, deleted: 0 }
    if (deleted === 0 || through === null) continue
    // How far minutes are given up (in the step's transaction): windows that would start there start at the whole hour.
    if (spanMs === MINUTE_MS) await client.query('UPDATE profile_statistics_coarsened SET minutes_before_ms = GREATEST(minutes_before_ms, $1)', [Number(through) + MINUTE_MS])
    else await client.query('UPDATE profile_statistics_coarsened SET hours_before_ms = GREATEST(hours_before_ms, $1)', [Number(through) + HOUR_MS])
    return deleted
  }
  return 0
}

/** Deletes up to `limit` rollup rows past the statistics' bound at `nowMs` (as on SQLite); returns how many went. */
export async function deleteExpiredRollups (client: pg.PoolClient, nowMs: number, statsMaxAgeMs: number, limit: number): Promise<number> {
  let deleted = 0
  for (const { spanMs, startThroughMs } of expiredRollups(nowMs, statsMaxAgeMs)) {
    if (deleted >= limit) break
    const { rowCount } = await client.query(`DELETE FROM profile_route_stats WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM profile_route_stats WHERE span_ms = $1 AND start_ms <= $2 LIMIT $3))`, [spanMs, startThroughMs, limit - deleted])
    deleted += rowCount ?? 0
  }
  // With them, the tallies of requests not counted whose period ended before the hour rows kept.
  if (deleted < limit) {
    const hoursKeptFrom = (expiredRollups(nowMs, statsMaxAgeMs).at(-1)?.startThroughMs ?? 0) + HOUR_MS
    const { rowCount } = await client.query(`DELETE FROM profile_statistics_missing WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM profile_statistics_missing WHERE start_ms <= $1 - span_ms LIMIT $2))`, [hoursKeptFrom, limit - deleted])
    deleted += rowCount ?? 0
  }
  return deleted
}
