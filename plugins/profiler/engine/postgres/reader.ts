import type pg from 'pg'
import { isPostgresFault } from '../../../../lib/postgres/faults.js'
import { migratePostgres, postgresSchemaVersion } from '../../../../lib/postgres/migrate.js'
import { createPool, inTransaction } from '../../../../lib/postgres/pool.js'
import { storableParams } from '../../../../lib/postgres/text.js'
import { profilerPostgresMigrationsDir } from '../../../../paths.js'
import type { ProfileSummary, SearchFilters, StoredProfile } from '../../profile.js'
import { storeBytes } from './partitions.js'
import { PROFILER_MIGRATIONS_TABLE } from './writer.js'
import { HOUR_MS, MINUTE_MS, windowRanges, WindowTotals, type WindowRow } from '../../stats/rollup.js'
import { trendPeriods, type PeriodRow, type RollupRange } from '../../stats/trend.js'
import { unrecordedTallies, type MissingWindow, type StampedTallies } from '../../stats/missing.js'
import type { StoreReader, StoreTarget, WindowStats } from '../contract.js'
import { rollupPeriodsQuery, type RollupDialect } from '../rollup-periods.js'
import { PROCESS_JOIN, PROFILE_COLUMNS, SUMMARY_COLUMNS, toStoredProfile, toSummary, type ProfileRow, type SummaryRow } from '../profile-rows.js'
import { filterTerms, searchOrder, withUrlTermSearchForm } from '../search-predicates.js'
import { SqlParameters, type SqlDialect } from '../../sql-dialect.js'
import { searchHarOf } from '../search-har.js'

const POSTGRES: SqlDialect = {
  placeholder: n => `$${n}`,
  position: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  urlSearchForm: `CASE WHEN strpos(p.url, '%') = 0 THEN p.url ELSE coalesce(
    (SELECT coalesce(u.search_url, u.url) FROM profile_urls u WHERE u.hash = hashtextextended(p.url, 0) AND u.url = p.url), p.url) END`
}
const POSTGRES_ROLLUPS: RollupDialect = { ...POSTGRES, sum: column => `sum(${column})::bigint`, histograms: "string_agg(histogram, ''::bytea)" }
/**
 * The profile of a token, in `alias`'s table: by the id its claim names (profile_tokens' primary key),
 * then its partition's id index (migration 019: no token index on the profiles). A claim outlives its
 * profile until swept, hence the token checked on the row too.
 */
const BY_TOKEN = (alias: string, token: string): string => `${alias}.id = (SELECT profile_id FROM profile_tokens WHERE token = ${token}) AND ${alias}.token = ${token}`
const DETAIL = `SELECT ${PROFILE_COLUMNS} FROM profiles p JOIN profile_data d ON d.token = p.token AND d.id = p.id ${PROCESS_JOIN}`
/** pg_trgm answers LIKE '%term%' through its index from 3 characters on. */
const MIN_TRIGRAM_LENGTH = 3
/** A substring that matches at most this many distinct URLs (or IPs) is answered value by value. */
const MAX_KEYED_LOOKUPS = 100

/**
 * The distinct values a substring filter matches (URL hashes as text: bigint), with their first and
 * last profile id; for URLs, each URL too (the rows read are those of exactly that URL).
 */
interface SearchKey { column: 'url' | 'ip', values: string[], urls: string[], firstIds: number[], lastIds: number[] }
interface KeyRow { value: string, url?: string, first_id: number, last_id: number }

function searchKey (column: SearchKey['column'], rows: KeyRow[]): SearchKey {
  return { column, values: rows.map(row => row.value), urls: rows.map(row => row.url ?? ''), firstIds: rows.map(row => row.first_id), lastIds: rows.map(row => row.last_id) }
}

/** A LIKE pattern that matches `text` anywhere, literally (%, _ and \ escaped). */
function containing (text: string): string {
  return `%${text.replace(/[\\%_]/g, match => `\\${match}`)}%`
}

/**
 * The part of a URL term whose trigrams the index looks up: the last four characters of its last
 * run of 3 or more letters and digits (pg_trgm's trigrams are made of words). Looking up every
 * trigram of "/api/invoices/1234" also walks the long lists of "api" and "inv" that nearly every
 * URL holds (8 ms at 200,000 URLs, against 0.4 ms for "1234"); strpos() then checks the whole term.
 */
function narrowingPart (term: string): string {
  const runs = term.match(/[A-Za-z0-9]{3,}/g)
  return runs === null ? term : (runs.at(-1) as string).slice(-4)
}

/**
 * The PostgreSQL engine's reader (request thread): a small pool of its own. Each filter is
 * answered through an index: equality filters by (column, id), substrings by the trigram indexes
 * of the distinct URLs and IPs (migration 003), then (value, id) for each matching value,
 * time bounds by partition pruning and the id index, newest first by reading the id index backwards.
 * A query that fails because the store cannot serve it (isFault) is a 503 naming the cause (ReaderConnection).
 */
export class PostgresReader implements StoreReader {
  private readonly statementNames = new Map<string, string>()

  private constructor (private readonly pool: pg.Pool) {}

  static async open (target: Extract<StoreTarget, { engine: 'postgres' }>, onMigrated: (message: string) => void): Promise<PostgresReader> {
    const pool = createPool(target.url, { max: 4, applicationName: 'profiler reader', statementTimeoutMs: target.statementTimeoutMs ?? 10_000, genericPlans: true })
    try {
      const migration = await migratePostgres(pool, profilerPostgresMigrationsDir, PROFILER_MIGRATIONS_TABLE)
      if (migration.applied.length > 0) onMigrated(`migrated from version ${migration.from} to ${migration.to}`)
      return new PostgresReader(pool)
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
  }

  /**
   * For the command line, next to the running service: sessions the server keeps read-only, and no
   * migration. Resolves with the schema version the store is at, for the caller to check.
   */
  static async openReadOnly (url: string): Promise<{ reader: PostgresReader, version: number }> {
    const pool = createPool(url, { max: 2, applicationName: 'profiler command line', statementTimeoutMs: 10_000, genericPlans: true, readOnly: true })
    try {
      return { reader: new PostgresReader(pool), version: await postgresSchemaVersion(pool, PROFILER_MIGRATIONS_TABLE) }
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
  }

  async search (given: SearchFilters): Promise<ProfileSummary[]> {
    const filters = withoutNulUrl(withUrlTermSearchForm(given))
    if (filters === null) return []
    const key = await this.searchKey(filters)
    if (key !== null && key.values.length === 0) return []
    const params = new SqlParameters(POSTGRES)
    // An IP substring is answered by its keys; a URL's keys are the URLs whose search form holds
    // the term, and the rows read are those of exactly these URLs (a URL hash could collide).
    const where = filterTerms(filters, params, POSTGRES, { ip: key?.column === 'ip', url: key?.column === 'url' })
    const limit = params.add(filters.limit)
    if (key === null) {
      return (await this.query<SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM profiles p WHERE ${where.join(' AND ')} ORDER BY ${searchOrder(filters)} LIMIT ${limit}`, params.values)).map(toSummary)
    }
    // Few matching values: the first rows of each (in the search's order), through its (value, id)
    // index and only in the partitions between its first and last profile, then merged.
    const keys = `${params.add(key.values)}::${key.column === 'ip' ? 'text' : 'bigint'}[], ${params.add(key.urls)}::text[], ${params.add(key.firstIds)}::bigint[], ${params.add(key.lastIds)}::bigint[]`
    const column = key.column === 'ip' ? 'p.ip = k.value' : 'hashtextextended(p.url, 0) = k.value AND p.url = k.url'
    const sql = `SELECT x.* FROM unnest(${keys}) AS k (value, url, first_id, last_id)
      CROSS JOIN LATERAL (SELECT ${SUMMARY_COLUMNS} FROM profiles p WHERE ${column} AND p.id BETWEEN k.first_id AND k.last_id
        AND ${where.join(' AND ')} ORDER BY ${searchOrder(filters)} LIMIT ${limit}) x
      ORDER BY ${searchOrder(filters, 'x')} LIMIT ${limit}`
    return (await this.query<SummaryRow>(sql, params.values)).map(toSummary)
  }

  /**
   * The distinct URLs (or IPs) that contain the searched text, when the trigram index can tell and
   * they are few; null when reading newest first is the better plan (a short or negated term, or so
   * many matching values that matching rows are dense).
   */
  private async searchKey (filters: SearchFilters): Promise<SearchKey | null> {
    if (filters.url !== undefined && filters.urlNegated !== true && filters.url.length >= MIN_TRIGRAM_LENGTH) {
      // The trigram index holds each URL's search form (migration 012), as the term is.
      const rows = await this.query<KeyRow>(`SELECT hash::text AS value, url, first_id, last_id FROM profile_urls
        WHERE coalesce(search_url, url) LIKE $1 AND strpos(coalesce(search_url, url), $2) > 0 LIMIT ${MAX_KEYED_LOOKUPS + 1}`,
      [containing(narrowingPart(filters.url)), filters.url])
      if (rows.length <= MAX_KEYED_LOOKUPS) return searchKey('url', rows)
    }
    if (filters.ip !== undefined && filters.ip.length >= MIN_TRIGRAM_LENGTH) {
      const rows = await this.query<KeyRow>(`SELECT ip AS value, first_id, last_id FROM profile_ips WHERE ip LIKE $1 LIMIT ${MAX_KEYED_LOOKUPS + 1}`, [containing(filters.ip)])
      if (rows.length <= MAX_KEYED_LOOKUPS) return searchKey('ip', rows)
    }
    return null
  }

  async searchHar (filters: SearchFilters, version: string): Promise<string> {
    return await searchHarOf(this, filters, version)
  }

  async find (token: string): Promise<StoredProfile | undefined> {
    return toStoredProfile((await this.query<ProfileRow>(`${DETAIL} WHERE ${BY_TOKEN('p', '$1')} LIMIT 1`, [token]))[0])
  }

  async latest (type: string): Promise<StoredProfile | undefined> {
    return toStoredProfile((await this.query<ProfileRow>(`${DETAIL} WHERE p.type = $1 ORDER BY p.id DESC LIMIT 1`, [type]))[0])
  }

  async neighbours (token: string, type: string): Promise<{ previous: string | null, next: string | null }> {
    // Ids may repeat across instances: (id, token) orders every profile.
    const [previous, next] = await Promise.all([
      this.query<{ token: string }>(`SELECT token FROM profiles WHERE type = $1 AND (id, token) < (SELECT o.id, o.token FROM profiles o WHERE ${BY_TOKEN('o', '$2')} LIMIT 1)
        ORDER BY id DESC, token DESC LIMIT 1`, [type, token]),
      this.query<{ token: string }>(`SELECT token FROM profiles WHERE type = $1 AND (id, token) > (SELECT o.id, o.token FROM profiles o WHERE ${BY_TOKEN('o', '$2')} LIMIT 1)
        ORDER BY id, token LIMIT 1`, [type, token])
    ])
    return { previous: previous[0]?.token ?? null, next: next[0]?.token ?? null }
  }

  /**
   * As on SQLite: the rollup rows of the minutes before the window's first whole hour, then the
   * hours (a primary-key range each), of every deployment or one. Every read in one snapshot (a
   * read-only REPEATABLE READ transaction): how far minutes were given up qualifies the rows read,
   * and a tally handed over is either in the store with its stamp or in neither.
   */
  async routeStats (nowMs: number, windowMs: number, deployment?: string, stamped: StampedTallies[] = []): Promise<WindowStats> {
    return await inTransaction(this.pool, async client => await this.routeStatsInSnapshot(client, nowMs, windowMs, deployment, stamped),
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
  }

  private async routeStatsInSnapshot (client: pg.PoolClient, nowMs: number, windowMs: number, deployment: string | undefined, stamped: StampedTallies[]): Promise<WindowStats> {
    const query = async <R extends pg.QueryResultRow> (sql: string, params: unknown[]): Promise<R[]> =>
      (await client.query<R>({ name: this.statementName(sql), text: sql, values: storableParams(params) })).rows
    const queryArrays = async <R extends unknown[]> (sql: string, params: unknown[]): Promise<R[]> =>
      (await client.query<R>({ name: this.statementName(sql), text: sql, values: storableParams(params), rowMode: 'array' })).rows
    const coarsened = await query<{ minutes: number, hours: number }>('SELECT minutes_before_ms AS minutes, hours_before_ms AS hours FROM profile_statistics_coarsened', [])
    const { fromMs, minutes, hoursFrom } = windowRanges(nowMs, windowMs, Number(coarsened[0]?.minutes ?? 0))
    // Added up per route and method, or status (sums of bigint are numeric: cast back to be numbers).
    const sql = `SELECT method, route, status, sum(count)::bigint, sum(status_1xx)::bigint, sum(status_2xx)::bigint, sum(status_3xx)::bigint,
      sum(status_4xx)::bigint, sum(status_5xx)::bigint, sum(sum_ms), max(max_ms), string_agg(histogram, ''::bytea), sum(kept)::bigint
      FROM profile_route_stats WHERE span_ms = $1 AND start_ms >= $2 AND start_ms < $3 AND ($4::text IS NULL OR deployment = $4)
      GROUP BY method, route, status`
    // One after the other: one connection (two queries at once on it are deprecated in node-postgres).
    const minuteRows = await queryArrays<WindowRow>(sql, [MINUTE_MS, minutes[0], minutes[1], deployment ?? null])
    const hourRows = await queryArrays<WindowRow>(sql, [HOUR_MS, hoursFrom, Number.MAX_SAFE_INTEGER, deployment ?? null])
    const totals = new WindowTotals()
    for (const row of minuteRows) totals.add(row)
    for (const row of hourRows) totals.add(row)
    // The tallies of requests not counted (migration 011) overlapping the window, per period of at
    // least the trend's (minutes for an hour's window, else hours).
    const span = 'CASE WHEN span_ms > $1 THEN span_ms ELSE $1 END'
    const missing = await query<MissingWindow>(`SELECT ${span}::float8 AS "spanMs", ((start_ms / ${span}) * ${span})::float8 AS "startMs", sum(count)::float8 AS count
      FROM profile_statistics_missing WHERE start_ms > $2::bigint - span_ms AND start_ms <= $3 AND ($4::text IS NULL OR deployment = $4)
      GROUP BY 1, 2 ORDER BY 2, 1`, [trendPeriods(nowMs, windowMs).spanMs, fromMs, nowMs, deployment ?? null])
    const recorded = stamped.length === 0
      ? new Set<string>()
      : new Set((await query<{ seq: number }>('SELECT seq::float8 AS seq FROM profile_statistics_stamps WHERE source = $1 AND seq = ANY ($2::bigint[])',
        [stamped[0]?.source, stamped.map(tallies => tallies.seq)])).map(row => `${stamped[0]?.source ?? ''} ${row.seq}`))
    const unrecorded = unrecordedTallies(stamped, tallies => recorded.has(`${tallies.source} ${tallies.seq}`))
    return { fromMs, hoursBeforeMs: Number(coarsened[0]?.hours ?? 0), routes: totals.lines(), missing: [...missing, ...unrecorded] }
  }

  async rollupPeriods (range: RollupRange): Promise<PeriodRow[]> {
    const { sql, values } = rollupPeriodsQuery(range, POSTGRES_ROLLUPS)
    return await this.queryArrays<PeriodRow>(sql, values)
  }

  async storeBytes (): Promise<number> {
    return await storeBytes(this.pool)
  }

  async deployments (): Promise<string[]> {
    return (await this.query<{ name: string }>('SELECT name FROM profile_deployments ORDER BY name', [])).map(row => row.name)
  }

  async eachToken (each: (token: string) => void): Promise<number> {
    const rows = await this.query<{ token: string }>('SELECT token FROM profiles', [])
    for (const row of rows) each(row.token)
    return rows.length
  }

  /** The server unreachable, refusing us, a statement cancelled by its timeout (behind a lock): the store is unavailable. */
  isFault (err: unknown): boolean {
    return isPostgresFault(err)
  }

  async close (): Promise<void> {
    await this.pool.end()
  }

  /**
   * Every statement is prepared once per connection (a name per distinct SQL text: a bounded set,
   * one per combination of filters): planning over many partitions is then not paid per query.
   */
  private async query<R extends pg.QueryResultRow> (sql: string, params: unknown[]): Promise<R[]> {
    // Text as the writer stores it (a NUL in a search term would fail the query).
    return (await this.pool.query<R>({ name: this.statementName(sql), text: sql, values: storableParams(params) })).rows
  }

  /** As query, each row an array of its columns in order (no object per row). */
  private async queryArrays<R extends unknown[]> (sql: string, params: unknown[]): Promise<R[]> {
    return (await this.pool.query<R>({ name: this.statementName(sql), text: sql, values: storableParams(params), rowMode: 'array' })).rows
  }

  private statementName (sql: string): string {
    let name = this.statementNames.get(sql)
    if (name === undefined) {
      name = `profiler_${this.statementNames.size + 1}`
      this.statementNames.set(sql, name)
    }
    return name
  }
}

/**
 * A URL term with a NUL, as PostgreSQL can answer it: text cannot hold a NUL here, and no URL the
 * service records holds one (the HTTP parser refuses a NUL in the target and in Host; `%00` stays
 * those three characters). So the term matches no URL (null: nothing to read), and its negation
 * every URL (the filter left out): the answer SQLite gives by comparing the term as it is.
 */
function withoutNulUrl (filters: SearchFilters): SearchFilters | null {
  if (filters.url === undefined || !filters.url.includes('\0')) return filters
  if (filters.urlNegated !== true) return null
  const { url: _url, urlNegated: _negated, ...others } = filters
  return others
}
