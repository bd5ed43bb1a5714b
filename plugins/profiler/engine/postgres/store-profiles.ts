import type pg from 'pg'
import { noNul } from '../../../../lib/postgres/text.js'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../profile.js'
import { ROW_COUNT_COLUMNS, ROW_COUNT_PG_TYPES, rowCountValues } from '../../row-counts.js'
import { storedSearchForm } from '../url-search-form.js'
import type { Partitions } from './partitions.js'

/** Rows of profile_data one statement inserts at most: four parameters a row, far below PostgreSQL's 65,535. */
const DATA_ROWS_PER_STATEMENT = 1000
/**
 * Batches of up to this many profiles are stored through a statement prepared for their size (one
 * name a size, a connection): at a low sampling rate nearly every batch holds one to a few.
 */
const EXACT_SIZES = 8
/**
 * The rows a statement has room for: the batch's size up to EXACT_SIZES, then the next power of two
 * (at most DATA_ROWS_PER_STATEMENT), the rows past the batch's NULL and left out. Every statement is
 * then one of 15 texts, each prepared once per connection: a text for every size was parsed and
 * planned for every batch, 0.6 ms of the server's time a batch of 94 profiles (issue 38).
 */
function roomFor (rows: number): number {
  return rows <= EXACT_SIZES ? rows : Math.min(DATA_ROWS_PER_STATEMENT, 2 ** Math.ceil(Math.log2(rows)))
}

// The row's counts (row-counts.ts) follow the profiles' fixed columns: $12 on, one array each, then the trace id.
const COUNTS = ROW_COUNT_COLUMNS.join(', ')
const TRACE = 12 + ROW_COUNT_COLUMNS.length
/**
 * The parameters after the profiles' columns: the per-process panels, the URLs' search forms, the
 * partitions' counts, and the ids a key's newest-profile bound is raised in (NEWEST_BOUND).
 */
const [PROCESS_KEYS, PROCESS_PANELS, PROCESS_LAST_IDS, SEARCH_FORMS, COUNT_PARTITIONS, COUNT_ADDED, BOUND_IDS, PARTITION_IDS] = Array.from({ length: 8 }, (_, i) => `$${TRACE + 1 + i}`)
const FIXED_PARAMETERS = TRACE + 8

/**
 * A URL's or IP's newest profile is a bound from above (`last_id`: the reader reads the partitions up
 * to it, the sweep deletes the row once the horizon passes it), raised to the end of the ten seconds
 * of ids the newer profile is in (never past its partition's end), not to the profile's id. Raised
 * to each batch's newest id, a URL or IP seen in every batch had its row rewritten every batch, with
 * new entries in each of its indexes (last_id is indexed: no HOT update), its trigrams' among them:
 * half of the store statement's server time at PROFILER_SAMPLE=0.01, a fifth with every request
 * kept (issue 38). A new key's row still has its exact ids: a URL seen once is swept as soon as its
 * profile is pruned.
 */
const BOUND_MS = 10_000
const NEWEST_BOUND = (newest: string, table: string): string => `GREATEST(${table}.last_id,
      LEAST((${newest} / ${BOUND_IDS}::bigint + 1) * ${BOUND_IDS}::bigint, (${newest} / ${PARTITION_IDS}::bigint + 1) * ${PARTITION_IDS}::bigint) - 1)`

/** The profiles' rows (their panels are in profile_data). */
const PROFILE_ROWS = `profile_rows AS (INSERT INTO profiles (id, token, deployment, parent_token, type, ip, method, url, status_code, duration_ms, route,
    ${COUNTS}, trace_id)
  SELECT id, token, $3, parent_token, type, ip, method, url, status_code, duration_ms, route,
    ${COUNTS}, trace_id
  FROM unnest($1::bigint[], $2::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::smallint[], $10::float8[], $11::text[],
    ${ROW_COUNT_PG_TYPES.map((type, index) => `$${12 + index}::${type}[]`).join(', ')}, $${TRACE}::text[])
    AS t (id, token, parent_token, type, ip, method, url, status_code, duration_ms, route,
      ${COUNTS}, trace_id))`

/**
 * The rows other transactions lock too, in the order retention's sweep deletes them (retention.ts:
 * sweepTokens) and last the partitions' counts (migration 013), so that the count rows, which every
 * instance writing into the partition takes, are held only while the rest commits. The parts of one
 * statement run in an order PostgreSQL does not promise: each part reads what the one before it
 * returned (a `count(*)` that is never negative), which makes the server finish that one first.
 * - The distinct URLs and IPs, with the oldest profile of each and a bound on the newest
 *   (NEWEST_BOUND; the reader's substring searches start there: migration 003; batches of other
 *   instances, or retried ones, may hold older ids), each URL with its search form
 *   (url-search-form.ts, the trigram index's: migration 012; a row written before that migration
 *   gets its form when its URL comes again).
 * - The per-process panels, once per key with the newest profile naming each (migration 008): always
 *   an update on conflict, never nothing, so that the row is locked until the batch commits and a
 *   sweep at the same time waits and then sees the new `last_id`. (None when no profile names any:
 *   the counts wait for the IPs as well.)
 * Keys are upserted in key order, so that instances writing the same values at once lock them in
 * the same order.
 */
const SHARED_ROWS = `url_rows AS (INSERT INTO profile_urls (hash, url, search_url, first_id, last_id)
  SELECT hashtextextended(url, 0), (array_agg(url ORDER BY url))[1], (array_agg(search_url ORDER BY url))[1], min(id), max(id)
  FROM unnest($1::bigint[], $8::text[], ${SEARCH_FORMS}::text[]) AS t (id, url, search_url) GROUP BY 1 ORDER BY 1
  ON CONFLICT (hash) DO UPDATE SET first_id = LEAST(profile_urls.first_id, excluded.first_id), last_id = ${NEWEST_BOUND('excluded.last_id', 'profile_urls')},
      search_url = CASE WHEN profile_urls.url = excluded.url THEN excluded.search_url ELSE profile_urls.search_url END
    WHERE excluded.first_id < profile_urls.first_id OR excluded.last_id > profile_urls.last_id
      OR (profile_urls.url = excluded.url AND profile_urls.search_url IS DISTINCT FROM excluded.search_url)
  RETURNING 1),
ip_rows AS (INSERT INTO profile_ips (ip, first_id, last_id)
  SELECT ip, min(id), max(id) FROM unnest($1::bigint[], $6::text[]) AS t (id, ip)
  WHERE (SELECT count(*) FROM url_rows) >= 0 GROUP BY 1 ORDER BY 1
  ON CONFLICT (ip) DO UPDATE SET first_id = LEAST(profile_ips.first_id, excluded.first_id), last_id = ${NEWEST_BOUND('excluded.last_id', 'profile_ips')}
    WHERE excluded.first_id < profile_ips.first_id OR excluded.last_id > profile_ips.last_id
  RETURNING 1),
process_rows AS (INSERT INTO profile_processes (key, panels, last_id)
  SELECT * FROM unnest(${PROCESS_KEYS}::text[], ${PROCESS_PANELS}::text[], ${PROCESS_LAST_IDS}::bigint[]) AS t (key, panels, last_id)
  WHERE (SELECT count(*) FROM ip_rows) >= 0
  ON CONFLICT (key) DO UPDATE SET last_id = GREATEST(profile_processes.last_id, excluded.last_id)
  RETURNING 1)`
const ADD_COUNTS = `INSERT INTO profile_counts (partition, profiles)
  SELECT * FROM unnest(${COUNT_PARTITIONS}::bigint[], ${COUNT_ADDED}::bigint[]) AS t (partition, profiles)
  WHERE (SELECT count(*) FROM process_rows) >= 0 AND (SELECT count(*) FROM ip_rows) >= 0
  ON CONFLICT (partition) DO UPDATE SET profiles = profile_counts.profiles + excluded.profiles`

/** `rows` profiles' panels as VALUES of profile_data, their parameters from `$from` on (four a row). */
function dataValues (rows: number, from: number): string {
  return Array.from({ length: rows }, (_, row) => `($${from + row * 4}, $${from + row * 4 + 1}, $${from + row * 4 + 2}, $${from + row * 4 + 3})`).join(', ')
}

/** `rows` rows of profile_data's columns, typed, their parameters from `$from` on (four a row); those of NULL id are padding. */
function paddedValues (rows: number, from: number): string {
  return Array.from({ length: rows }, (_, row) => `($${from + row * 4}::bigint, $${from + row * 4 + 1}::text, $${from + row * 4 + 2}::text, $${from + row * 4 + 3}::text)`).join(', ')
}

/** The statement storing up to `room` profiles (roomFor) with their panels: one text a room, prepared. */
const storeTexts = new Map<number, string>()
function storeText (room: number): string {
  let text = storeTexts.get(room)
  if (text === undefined) {
    text = `WITH ${PROFILE_ROWS},
data_rows AS (INSERT INTO profile_data (id, token, panels, process_key)
  SELECT * FROM (VALUES ${paddedValues(room, FIXED_PARAMETERS + 1)}) AS v (id, token, panels, process_key) WHERE v.id IS NOT NULL),
${SHARED_ROWS}
${ADD_COUNTS}`
    storeTexts.set(room, text)
  }
  return text
}

/** The per-process panels `stored` names, each key once with the newest profile naming it, in key order. */
function processesOf (stored: ProfileRecord[]): unknown[][] {
  const processes = new Map<string, { panels: string, lastId: number }>()
  for (const profile of stored) {
    if (profile.process === undefined) continue
    const lastId = Math.max(profile.id, processes.get(profile.process.key)?.lastId ?? profile.id)
    processes.set(profile.process.key, { panels: profile.process.panels, lastId })
  }
  const keys = [...processes.keys()].sort()
  return [keys, keys.map(key => noNul(processes.get(key)?.panels ?? '')), keys.map(key => processes.get(key)?.lastId ?? 0)]
}

/**
 * Stores the profiles (their tokens claimed) in the caller's transaction: their rows, panels,
 * search keys, per-process panels and the partitions' counts as data-modifying parts of one
 * statement, one round trip where there were six (issue 38; past DATA_ROWS_PER_STATEMENT profiles,
 * the panels of the rest in statements of their own).
 */
export async function storeProfiles (client: pg.PoolClient, stored: ProfileRecord[], deployment: string, partitions: Partitions): Promise<void> {
  if (stored.length === 0) return
  const urls = stored.map(p => noNul(p.url))
  const forms = new Map(urls.map(url => [url, storedSearchForm(url)]))
  const countValues = stored.map(rowCountValues)
  const counts = partitions.countsOf(stored.map(p => p.id), 1)
  const values: unknown[] = [
    stored.map(p => p.id), stored.map(p => p.token), deployment, stored.map(p => p.parentToken), stored.map(p => p.type),
    stored.map(p => noNul(p.ip)), stored.map(p => noNul(p.method)), urls, stored.map(p => p.statusCode),
    stored.map(p => p.durationMs), stored.map(p => p.route === null ? null : noNul(p.route)),
    ...ROW_COUNT_COLUMNS.map((_, index) => countValues.map(counts => counts[index])), stored.map(p => p.traceId ?? null),
    ...processesOf(stored), urls.map(url => forms.get(url)), counts.numbers, counts.added,
    Math.min(BOUND_MS * ID_SLOTS_PER_MS, partitions.idsPerPartition), partitions.idsPerPartition
  ]
  const inline = stored.slice(0, DATA_ROWS_PER_STATEMENT)
  for (const profile of inline) values.push(profile.id, profile.token, profile.panels, profile.process?.key ?? null)
  const room = roomFor(inline.length)
  for (let padding = inline.length; padding < room; padding++) values.push(null, null, null, null)
  await client.query({ name: `profiler_store_${room}`, text: storeText(room), values })
  // The panels of a batch past one statement's rows.
  for (let start = DATA_ROWS_PER_STATEMENT; start < stored.length; start += DATA_ROWS_PER_STATEMENT) {
    const rows = stored.slice(start, start + DATA_ROWS_PER_STATEMENT)
    await client.query(`INSERT INTO profile_data (id, token, panels, process_key) VALUES ${dataValues(rows.length, 1)}`,
      rows.flatMap(profile => [profile.id, profile.token, profile.panels, profile.process?.key ?? null]))
  }
}
