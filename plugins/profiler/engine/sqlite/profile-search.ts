import type { Database, Statement } from 'better-sqlite3'
import type { ProfileSummary, SearchFilters, StoredProfile } from '../../profile.js'
import { PROFILE_COLUMNS, SUMMARY_COLUMNS, toStoredProfile, toSummary, type SummaryRow } from '../profile-rows.js'
import { DecodedBlocks, type BlockProfileRow } from './decoded-blocks.js'
import { compareRows, filterTerms, searchOrder, withUrlTermSearchForm } from '../search-predicates.js'
import { SqlParameters, type SqlDialect } from '../../sql-dialect.js'
import { HOUR_MS, MINUTE_MS, windowRanges, WindowTotals, type WindowRow } from '../../stats/rollup.js'
import { trendPeriods, type PeriodRow, type RollupRange } from '../../stats/trend.js'
import { unrecordedTallies, type MissingWindow, type StampedTallies } from '../../stats/missing.js'
import type { WindowStats } from '../contract.js'
import { rollupPeriodsQuery, type RollupDialect } from '../rollup-periods.js'

/** A substring filter that matches at most this many distinct URLs (or IPs) is answered key by key. */
const MAX_KEYED_LOOKUPS = 100
/**
 * Up to this many matching URLs, the rows of exactly those URLs are read through their index and
 * the newest kept; past it the matches are so common that reading newest first finds them at once.
 */
const MAX_URL_SET = 5_000
/** The trigram index answers substrings of 3 characters (code points) or more. */
const MIN_TRIGRAM_LENGTH = 3

type Key = { column: 'url_id', values: number[] } | { column: 'ip', values: string[] } | { column: 'url_set', values: number[] }

const SQLITE: SqlDialect = {
  placeholder: () => '?',
  position: (haystack, needle) => `instr(${haystack}, ${needle})`,
  urlSearchForm: "CASE WHEN instr(p.url, '%') = 0 THEN p.url ELSE coalesce((SELECT coalesce(u.search_url, u.url) FROM profile_urls u WHERE u.id = p.url_id), p.url) END"
}
const SQLITE_ROLLUPS: RollupDialect = { ...SQLITE, sum: column => `sum(${column})`, histograms: "group_concat(hex(histogram), '')" }

/**
 * The trigrams that narrow a URL search: the last one of the term and the one just before it
 * (not overlapping). The end of a URL fragment is its specific part (ids, names); asking the
 * index for every trigram, as GLOB does, also walks common ones such as "/ap" that nearly every
 * URL holds (measured: 8 ms instead of 0.2 ms at 200,000 URLs). instr() then checks each candidate.
 * FTS5 reads its query as a C string (a NUL ends it: "unterminated string"), so the trigrams come
 * from the term's last run of 3 or more characters without a NUL; null when there is none (then
 * instr() alone decides, row by row). instr() compares the whole term, NUL included.
 */
function narrowingTrigrams (text: string): string[] | null {
  const run = text.split('\0').map(part => Array.from(part)).findLast(chars => chars.length >= MIN_TRIGRAM_LENGTH)
  if (run === undefined) return null
  const last = run.slice(-3).join('')
  return run.length >= 6 ? [run.slice(-6, -3).join(''), last] : [last]
}

/** An FTS5 query that requires each trigram (each one a quoted single token). */
function allOf (trigrams: string[]): string {
  return trigrams.map(trigram => `"${trigram.replace(/"/g, '""')}"`).join(' AND ')
}

function prepareReadStatements (db: Database) {
  // The panels in a block (migration 016), or for a profile written before blocks in its
  // profile_data row; a profile with neither is not there (as when profile_data was joined).
  const detail = `SELECT ${PROFILE_COLUMNS}, p.block_id, b.panels AS block, p.block_at, p.block_bytes
    FROM profiles p LEFT JOIN profile_data d ON d.profile_id = p.id LEFT JOIN profile_blocks b ON b.id = p.block_id
    LEFT JOIN profile_processes pp ON pp.key = coalesce(d.process_key, b.process_key)`
  const stored = '(d.profile_id IS NOT NULL OR b.id IS NOT NULL)'
  return {
    byToken: db.prepare(`${detail} WHERE p.token = ? AND ${stored}`),
    newest: db.prepare(`${detail} WHERE p.type = ? AND ${stored} ORDER BY p.id DESC LIMIT 1`),
    // Candidates from a few of the term's trigrams, then the exact (case-sensitive) substring test,
    // both on the URL's search form (the index holds that form: migration 011).
    matchingUrls: db.prepare(`SELECT u.id FROM profile_urls_fts f JOIN profile_urls u ON u.id = f.rowid
      WHERE profile_urls_fts MATCH ? AND instr(coalesce(u.search_url, u.url), ?) > 0 LIMIT ${MAX_URL_SET + 1}`).pluck(),
    matchingIps: db.prepare(`SELECT ip FROM profile_ips WHERE instr(ip, ?) > 0 LIMIT ${MAX_KEYED_LOOKUPS + 1}`).pluck(),
    older: db.prepare('SELECT token FROM profiles WHERE type = ? AND id < (SELECT id FROM profiles WHERE token = ?) ORDER BY id DESC LIMIT 1').pluck(),
    newer: db.prepare('SELECT token FROM profiles WHERE type = ? AND id > (SELECT id FROM profiles WHERE token = ?) ORDER BY id LIMIT 1').pluck(),
    // A span's rollup rows over a range of periods (a primary-key range, never the profiles), of
    // every deployment or one, added up per route and method, or status: the histograms as hex, one after the other.
    rollups: db.prepare(`SELECT method, route, status, sum(count), sum(status_1xx), sum(status_2xx), sum(status_3xx), sum(status_4xx), sum(status_5xx),
      sum(sum_ms), max(max_ms), group_concat(hex(histogram), ''), sum(kept)
      FROM profile_route_stats WHERE span_ms = @span AND start_ms >= @from AND start_ms < @to AND (@deployment IS NULL OR deployment = @deployment)
      GROUP BY method, route, status`).raw(),
    // The tallies of requests not counted (migration 010) overlapping a window, per period of at
    // least @span (minutes for an hour's window, else hours: as many as the trend has points).
    missing: db.prepare(`SELECT CASE WHEN span_ms > @span THEN span_ms ELSE @span END AS spanMs,
        (start_ms / CASE WHEN span_ms > @span THEN span_ms ELSE @span END) * CASE WHEN span_ms > @span THEN span_ms ELSE @span END AS startMs,
        sum(count) AS count
      FROM profile_statistics_missing WHERE start_ms > @from - span_ms AND start_ms <= @to AND (@deployment IS NULL OR deployment = @deployment)
      GROUP BY 1, 2 ORDER BY 2, 1`),
    allTokens: db.prepare('SELECT token FROM profiles').pluck(),
    coarsened: db.prepare('SELECT minutes_before_ms AS minutes, hours_before_ms AS hours FROM profile_statistics_coarsened'),
    stampRecorded: db.prepare('SELECT 1 FROM profile_statistics_stamps WHERE source = ? AND seq = ?').pluck(),
    deployments: db.prepare('SELECT name FROM profile_deployments ORDER BY name').pluck(),
    countAll: db.prepare('SELECT count(*) FROM profiles').pluck(),
    pageCount: db.prepare('PRAGMA page_count').pluck(),
    pageSize: db.prepare('PRAGMA page_size').pluck()
  }
}

/**
 * Every read of the profile store: the search listing, one profile, the newest. Runs on the
 * request thread with its own connection (WAL: reads never wait for the writer thread).
 */
export class SqliteProfileSearch {
  private readonly statements: ReturnType<typeof prepareReadStatements>
  private readonly searches = new Map<string, Statement>()
  private readonly blocks = new DecodedBlocks()

  constructor (private readonly db: Database) {
    this.statements = prepareReadStatements(db)
  }

  search (given: SearchFilters): ProfileSummary[] {
    const filters = withUrlTermSearchForm(given)
    const key = this.searchKey(filters)
    if (key === null) return this.runSearch(filters, null).map(toSummary)
    if (key.values.length === 0) return []
    if (key.column === 'url_set') return this.runSearch(filters, { column: 'url_set', value: JSON.stringify(key.values) }).map(toSummary)
    // Few matching URLs (or IPs): the first rows (in the search's order) of each one's index entries, then merge.
    const merged: SummaryRow[] = []
    for (const value of key.values) merged.push(...this.runSearch(filters, { column: key.column, value }))
    return merged.sort(compareRows(filters)).slice(0, filters.limit).map(toSummary)
  }

  find (token: string): StoredProfile | undefined {
    return toStoredProfile(this.blocks.withPanels(this.statements.byToken.get(token) as BlockProfileRow | undefined))
  }

  latest (type = 'request'): StoredProfile | undefined {
    return toStoredProfile(this.blocks.withPanels(this.statements.newest.get(type) as BlockProfileRow | undefined))
  }

  /** The tokens of the profiles just before (older) and just after (newer) this one, of the same type. */
  neighbours (token: string, type = 'request'): { previous: string | null, next: string | null } {
    return {
      previous: (this.statements.older.get(type, token) as string | undefined) ?? null,
      next: (this.statements.newer.get(type, token) as string | undefined) ?? null
    }
  }

  /**
   * Route statistics over the window ending at `nowMs`, from the rollup rows the writer keeps:
   * the minutes before the window's first whole hour, then the hours, each added up by SQLite.
   * One read transaction (one snapshot of the WAL): the writer thread commits between statements.
   */
  routeStats (nowMs: number, windowMs: number, deployment?: string, stamped: StampedTallies[] = []): WindowStats {
    return this.db.transaction(() => this.routeStatsInSnapshot(nowMs, windowMs, deployment, stamped))()
  }

  private routeStatsInSnapshot (nowMs: number, windowMs: number, deployment: string | undefined, stamped: StampedTallies[]): WindowStats {
    const coarsened = this.statements.coarsened.get() as { minutes: number, hours: number } | undefined
    const { fromMs, minutes, hoursFrom } = windowRanges(nowMs, windowMs, coarsened?.minutes ?? 0)
    const totals = new WindowTotals()
    for (const [span, from, to] of [[MINUTE_MS, minutes[0], minutes[1]], [HOUR_MS, hoursFrom, Number.MAX_SAFE_INTEGER]] as const) {
      // The histograms come as hex (group_concat joins text): back to bytes.
      for (const row of this.statements.rollups.all({ span, from, to, deployment: deployment ?? null }) as unknown[][]) {
        totals.add([...row.slice(0, 11), Buffer.from(row[11] as string, 'hex'), row[12]] as unknown as WindowRow)
      }
    }
    const missing = this.statements.missing.all({ span: trendPeriods(nowMs, windowMs).spanMs, from: fromMs, to: nowMs, deployment: deployment ?? null }) as MissingWindow[]
    const unrecorded = unrecordedTallies(stamped, tallies => this.statements.stampRecorded.get(tallies.source, tallies.seq) !== undefined)
    return { fromMs, hoursBeforeMs: coarsened?.hours ?? 0, routes: totals.lines(), missing: [...missing, ...unrecorded] }
  }

  /** A span's rollup rows per line and period (the histograms as hex: back to bytes). */
  rollupPeriods (range: RollupRange): PeriodRow[] {
    const { sql, values } = rollupPeriodsQuery(range, SQLITE_ROLLUPS)
    const rows = this.prepared(sql).raw().all(...values) as unknown[][]
    return rows.map(row => [...row.slice(0, 6), Buffer.from(row[6] as string, 'hex')] as unknown as PeriodRow)
  }

  /** Every stored token (read once at start, to fill the request thread's token set). */
  tokens (): IterableIterator<string> {
    return this.statements.allTokens.iterate() as IterableIterator<string>
  }

  /** The deployments that ever wrote to this store. */
  deployments (): string[] {
    return this.statements.deployments.all() as string[]
  }

  count (): number {
    return this.statements.countAll.get() as number
  }

  /** The database's size in pages times the page size: the file, once checkpointed. */
  fileBytes (): number {
    return (this.statements.pageCount.get() as number) * (this.statements.pageSize.get() as number)
  }

  /** Which index answers a substring filter, or null when a newest-first scan is the better plan. */
  private searchKey (filters: SearchFilters): Key | null {
    const trigrams = filters.url === undefined || filters.urlNegated === true ? null : narrowingTrigrams(filters.url)
    if (filters.url !== undefined && trigrams !== null) {
      const ids = this.statements.matchingUrls.all(allOf(trigrams), filters.url) as number[]
      if (ids.length <= MAX_KEYED_LOOKUPS) return { column: 'url_id', values: ids }
      if (ids.length <= MAX_URL_SET) return { column: 'url_set', values: ids }
    }
    if (filters.ip !== undefined) {
      const ips = this.statements.matchingIps.all(filters.ip) as string[]
      if (ips.length <= MAX_KEYED_LOOKUPS) return { column: 'ip', values: ips }
    }
    // Many matches: they are dense, so reading newest first finds `limit` of them quickly.
    return null
  }

  private runSearch (filters: SearchFilters, key: { column: string, value: number | string } | null): SummaryRow[] {
    const params = new SqlParameters(SQLITE)
    const where = filterTerms(filters, params, SQLITE, { ip: key?.column === 'ip', url: key?.column === 'url_id' || key?.column === 'url_set' })
    // The matching URL ids of a url_set come as one JSON array: the rows of those URLs only, newest kept.
    if (key?.column === 'url_set') where.push(`p.url_id IN (SELECT value FROM json_each(${params.add(key.value)}))`)
    else if (key !== null) where.push(`p.${key.column} = ${params.add(key.value)}`)
    // A keyed lookup must walk its own index (it holds the row id, so it comes out newest first;
    // slowest first, the key's rows are sorted: as many as the key has, in the time bounds).
    const indexed = key === null ? '' : ` INDEXED BY profiles_${key.column === 'ip' ? 'ip' : 'url_id'}`
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM profiles p${indexed} WHERE ${where.join(' AND ')} ORDER BY ${searchOrder(filters)} LIMIT ${params.add(filters.limit)}`
    return this.prepared(sql).all(...params.values) as SummaryRow[]
  }

  /** A statement prepared once per distinct text (a bounded set: one per combination of filters). */
  private prepared (sql: string): Statement {
    let statement = this.searches.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      this.searches.set(sql, statement)
    }
    return statement
  }
}
