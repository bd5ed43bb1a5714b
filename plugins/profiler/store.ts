import type { Database, Statement } from 'better-sqlite3'
import { idRangeOf, ID_SLOTS_PER_MS, type ProfileRecord, type ProfileSummary, type SearchFilters, type StoredProfile } from './profile.js'
import { TokenSet } from './token.js'

export interface StoreOptions {
  /** Profiles waiting for the writer at most; past that new ones are dropped and counted. */
  maxQueue: number
  /** Write as soon as this many are queued. */
  batchSize: number
  /** Otherwise write this long after the first queued profile. */
  flushDelayMs: number
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { maxQueue: 10_000, batchSize: 500, flushDelayMs: 20 }

/** A substring filter that matches at most this many distinct URLs (or IPs) is answered key by key. */
const MAX_KEYED_LOOKUPS = 100
/** The trigram index answers substrings of 3 characters or more. */
const MIN_TRIGRAM_LENGTH = 3
/** Recently used URL ids and IPs kept in memory, so that repeated URLs cost no lookup. */
const CACHE_SIZE = 5_000

interface SummaryRow { id: number, token: string, ip: string, method: string, url: string, status: number, time: string, duration_ms: number }
interface ProfileRow extends SummaryRow { parent_token: string | null, type: string, route: string | null, panels: string }
type Key = { column: 'url_id', values: number[] } | { column: 'ip', values: string[] }

const SUMMARY_COLUMNS = 'p.id, p.token, p.ip, p.method, p.url, p.status_code AS status, p.time, p.duration_ms'

/** A Map that forgets everything once full: cheap, and hot keys come straight back. */
function remember<K, V> (cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE_SIZE) cache.clear()
  cache.set(key, value)
  return value
}

/** A GLOB pattern for a literal substring: *, ? and [ are matched as themselves. */
function containsPattern (text: string): string {
  return `*${text.replace(/[*?[]/g, char => `[${char}]`)}*`
}

/** Every statement the store runs, prepared once. */
function prepareStatements (db: Database) {
  const detail = `SELECT ${SUMMARY_COLUMNS}, p.parent_token, p.type, p.route, d.panels FROM profiles p JOIN profile_data d ON d.profile_id = p.id`
  return {
    insertProfile: db.prepare(`
      INSERT INTO profiles (id, token, parent_token, type, ip, method, url, url_id, status_code, duration_ms, route)
      VALUES (@id, @token, @parentToken, @type, @ip, @method, @url, @urlId, @statusCode, @durationMs, @route)
      ON CONFLICT DO NOTHING`),
    insertPanels: db.prepare('INSERT INTO profile_data (profile_id, panels) VALUES (?, ?)'),
    findUrl: db.prepare('SELECT id FROM profile_urls WHERE url = ?').pluck(),
    insertUrl: db.prepare('INSERT INTO profile_urls (url) VALUES (?)'),
    insertIp: db.prepare('INSERT OR IGNORE INTO profile_ips (ip) VALUES (?)'),
    tokenTaken: db.prepare('SELECT 1 FROM profiles WHERE token = ?').pluck(),
    allTokens: db.prepare('SELECT token FROM profiles').pluck(),
    byToken: db.prepare(`${detail} WHERE p.token = ?`),
    newest: db.prepare(`${detail} WHERE p.type = ? ORDER BY p.id DESC LIMIT 1`),
    // GLOB, case-sensitive, is answered by the trigram index (MATCH phrases would need detail=full).
    matchingUrls: db.prepare(`SELECT rowid FROM profile_urls_fts WHERE url GLOB ? LIMIT ${MAX_KEYED_LOOKUPS + 1}`).pluck(),
    matchingIps: db.prepare(`SELECT ip FROM profile_ips WHERE instr(ip, ?) > 0 LIMIT ${MAX_KEYED_LOOKUPS + 1}`).pluck(),
    countAll: db.prepare('SELECT count(*) FROM profiles').pluck(),
    oldestId: db.prepare('SELECT id FROM profiles ORDER BY id LIMIT 1').pluck(),
    nthOldestId: db.prepare('SELECT id FROM profiles ORDER BY id LIMIT 1 OFFSET ?').pluck(),
    deleteData: db.prepare('DELETE FROM profile_data WHERE profile_id <= ?'),
    deleteProfiles: db.prepare('DELETE FROM profiles WHERE id <= ? RETURNING token').pluck(),
    orphanUrls: db.prepare(`DELETE FROM profile_urls WHERE id IN (
      SELECT u.id FROM profile_urls u WHERE u.id > ? AND NOT EXISTS (SELECT 1 FROM profiles p WHERE p.url_id = u.id)
      ORDER BY u.id LIMIT ?) RETURNING id, url`),
    orphanIps: db.prepare('DELETE FROM profile_ips WHERE NOT EXISTS (SELECT 1 FROM profiles p WHERE p.ip = profile_ips.ip) RETURNING ip').pluck(),
    pageCount: db.prepare('PRAGMA page_count').pluck(),
    freePages: db.prepare('PRAGMA freelist_count').pluck()
  }
}

/**
 * ProfileStore: all profiler SQL. Profiles are queued on the request path and written in
 * batches, one transaction each, from a timer; close() writes what is left. Retention
 * (prune, reclaim) is driven from retention.ts.
 */
export class ProfileStore {
  /** Profiles dropped because the queue was full or the row could not be written. */
  dropped = 0
  /** Rows in `profiles`, kept in step by writes and prunes (counting a large table is slow). */
  count: number
  private queue: ProfileRecord[] = []
  /** Tokens of stored and queued profiles. */
  private readonly tokens = new TokenSet()
  private timer: NodeJS.Timeout | null = null
  private idCounter = 0
  private readonly urlIds = new Map<string, number>()
  private readonly knownIps = new Set<string>()
  private readonly statements: ReturnType<typeof prepareStatements>
  private readonly searches = new Map<string, Statement>()
  private readonly writeBatch: (batch: ProfileRecord[]) => number
  private readonly deleteBatch: (throughId: number) => number

  constructor (private readonly db: Database, private readonly options: StoreOptions = DEFAULT_STORE_OPTIONS, private readonly onDrop: (reason: string) => void = () => {}) {
    this.statements = prepareStatements(db)
    this.count = this.statements.countAll.get() as number
    for (const token of this.statements.allTokens.iterate()) this.tokens.add(token as string)
    this.writeBatch = db.transaction((batch: ProfileRecord[]) => {
      let written = 0
      for (const profile of batch) {
        if (this.insertOne(profile)) written++
      }
      return written
    })
    this.deleteBatch = db.transaction((throughId: number) => {
      this.statements.deleteData.run(throughId)
      const tokens = this.statements.deleteProfiles.all(throughId) as string[]
      for (const token of tokens) this.tokens.delete(token)
      return tokens.length
    })
  }

  /**
   * An id that sorts by request start: start_ms * 1024 + a rolling slot. Two requests that
   * start in the same millisecond get different slots; a rare clash is resolved when writing.
   */
  nextId (startMs: number): number {
    const slot = this.idCounter++ % ID_SLOTS_PER_MS
    return Math.floor(startMs) * ID_SLOTS_PER_MS + slot
  }

  /** Whether a token is queued or stored: tokens are unique among stored profiles. */
  isTokenTaken (token: string): boolean {
    return this.tokens.has(token)
  }

  /** Reserves a token for a profile about to be queued. */
  reserveToken (token: string): void {
    this.tokens.add(token)
  }

  /** Gives back the token of a profile that will not be stored. */
  releaseToken (token: string): void {
    this.tokens.delete(token)
  }

  /** Queues a profile; never writes, never throws. Returns false when it had to be dropped. */
  enqueue (profile: ProfileRecord): boolean {
    if (this.queue.length >= this.options.maxQueue) {
      this.releaseToken(profile.token)
      this.drop('the write queue is full')
      return false
    }
    this.queue.push(profile)
    if (this.queue.length >= this.options.batchSize) this.schedule(0)
    else this.schedule(this.options.flushDelayMs)
    return true
  }

  get queued (): number {
    return this.queue.length
  }

  /** Writes every queued profile now, in one transaction; returns how many were written. */
  flush (): number {
    this.cancelTimer()
    if (this.queue.length === 0) return 0
    const batch = this.queue
    this.queue = []
    let written = 0
    try {
      written = this.writeBatch(batch)
    } catch (err) {
      // The transaction rolled back: the caches may name rows that were never committed.
      this.urlIds.clear()
      this.knownIps.clear()
      this.dropped += batch.length
      for (const profile of batch) this.releaseToken(profile.token)
      this.onDrop(`a batch of ${batch.length} profiles could not be written: ${(err as Error).message}`)
    }
    this.count += written
    return written
  }

  /** Writes what is left and stops the timer (the database is closed by its owner). */
  close (): void {
    this.flush()
  }

  search (filters: SearchFilters): ProfileSummary[] {
    const key = this.searchKey(filters)
    if (key === null) return this.runSearch(filters, null).map(withoutId)
    if (key.values.length === 0) return []
    // Few matching URLs (or IPs): newest-first on each one's index entries, then merge.
    const merged: SummaryRow[] = []
    for (const value of key.values) merged.push(...this.runSearch(filters, { column: key.column, value }))
    return merged.sort((a, b) => b.id - a.id).slice(0, filters.limit).map(withoutId)
  }

  find (token: string): StoredProfile | undefined {
    return toStoredProfile(this.statements.byToken.get(token) as ProfileRow | undefined)
  }

  latest (type = 'request'): StoredProfile | undefined {
    return toStoredProfile(this.statements.newest.get(type) as ProfileRow | undefined)
  }

  /** Id of the oldest profile, or undefined when the store is empty. */
  oldestId (): number | undefined {
    return this.statements.oldestId.get() as number | undefined
  }

  /** Id of the n-th oldest profile (1 = the oldest). */
  nthOldestId (n: number): number | undefined {
    return this.statements.nthOldestId.get(n - 1) as number | undefined
  }

  /** Deletes every profile with id <= throughId (with its panels), in one transaction. */
  deleteThrough (throughId: number): number {
    const deleted = this.deleteBatch(throughId)
    this.count -= deleted
    return deleted
  }

  /**
   * Deletes up to `limit` URLs after `afterId` that no profile uses any more; returns the last
   * id looked at (0 when the end was reached), to go on from there next time.
   */
  deleteOrphanUrls (afterId: number, limit: number): { deleted: number, nextAfterId: number } {
    const rows = this.statements.orphanUrls.all(afterId, limit) as Array<{ id: number, url: string }>
    for (const row of rows) this.urlIds.delete(row.url)
    return { deleted: rows.length, nextAfterId: rows.length < limit ? 0 : rows.at(-1)?.id ?? 0 }
  }

  deleteOrphanIps (): number {
    const ips = this.statements.orphanIps.all() as string[]
    for (const ip of ips) this.knownIps.delete(ip)
    return ips.length
  }

  /** Bytes the database uses, free pages excluded (what pruning can act on). */
  usedBytes (): number {
    return ((this.statements.pageCount.get() as number) - (this.statements.freePages.get() as number)) * this.pageSize()
  }

  /** The database's size in pages times the page size: the file, once checkpointed. */
  fileBytes (): number {
    return (this.statements.pageCount.get() as number) * this.pageSize()
  }

  /** Returns up to `pages` free pages to the file system (auto_vacuum = INCREMENTAL). */
  reclaim (pages: number): void {
    this.db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`)
  }

  freePageCount (): number {
    return this.statements.freePages.get() as number
  }

  private pageSize (): number {
    return this.db.pragma('page_size', { simple: true }) as number
  }

  /** Which index answers a substring filter, or null when a newest-first scan is the better plan. */
  private searchKey (filters: SearchFilters): Key | null {
    if (filters.url !== undefined && filters.urlNegated !== true && filters.url.length >= MIN_TRIGRAM_LENGTH) {
      const ids = this.statements.matchingUrls.all(containsPattern(filters.url)) as number[]
      if (ids.length <= MAX_KEYED_LOOKUPS) return { column: 'url_id', values: ids }
    }
    if (filters.ip !== undefined) {
      const ips = this.statements.matchingIps.all(filters.ip) as string[]
      if (ips.length <= MAX_KEYED_LOOKUPS) return { column: 'ip', values: ips }
    }
    // Many matches: they are dense, so reading newest first finds `limit` of them quickly.
    return null
  }

  private runSearch (filters: SearchFilters, key: { column: string, value: number | string } | null): SummaryRow[] {
    const where = ['p.type = @type']
    const params: Record<string, unknown> = { type: filters.type, limit: filters.limit }
    if (key !== null) {
      where.push(`p.${key.column} = @key`)
      params.key = key.value
    }
    if (filters.ip !== undefined && key?.column !== 'ip') {
      where.push('instr(p.ip, @ip) > 0')
      params.ip = filters.ip
    }
    if (filters.method !== undefined) {
      where.push('p.method = @method')
      params.method = filters.method
    }
    if (filters.statusCode !== undefined) {
      where.push('p.status_code = @statusCode')
      params.statusCode = filters.statusCode
    }
    if (filters.url !== undefined && key?.column !== 'url_id') {
      where.push(filters.urlNegated === true ? 'instr(p.url, @url) = 0' : 'instr(p.url, @url) > 0')
      params.url = filters.url
    }
    if (filters.start !== undefined || filters.end !== undefined) {
      where.push('p.id BETWEEN @low AND @high')
      Object.assign(params, idRangeOf(filters.start, filters.end))
    }
    // A keyed lookup must walk its own index (it holds the row id, so it comes out newest first).
    const indexed = key === null ? '' : ` INDEXED BY profiles_${key.column}`
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM profiles p${indexed} WHERE ${where.join(' AND ')} ORDER BY p.id DESC LIMIT @limit`
    let statement = this.searches.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      this.searches.set(sql, statement)
    }
    return statement.all(params) as SummaryRow[]
  }

  private urlIdOf (url: string): number {
    const cached = this.urlIds.get(url)
    if (cached !== undefined) return cached
    const stored = this.statements.findUrl.get(url) as number | undefined
    return remember(this.urlIds, url, stored ?? Number(this.statements.insertUrl.run(url).lastInsertRowid))
  }

  private noteIp (ip: string): void {
    if (this.knownIps.has(ip)) return
    this.statements.insertIp.run(ip)
    if (this.knownIps.size >= CACHE_SIZE) this.knownIps.clear()
    this.knownIps.add(ip)
  }

  /**
   * Inserts one profile; a taken id moves to the next free slot of the same millisecond.
   * A stored profile is never overwritten: a taken token (or a full millisecond) drops the new one.
   */
  private insertOne (profile: ProfileRecord): boolean {
    const row = { ...profile, urlId: this.urlIdOf(profile.url) }
    this.noteIp(profile.ip)
    const msBase = profile.id - (profile.id % ID_SLOTS_PER_MS)
    for (let attempt = 0; attempt < ID_SLOTS_PER_MS; attempt++) {
      row.id = msBase + ((profile.id + attempt) % ID_SLOTS_PER_MS)
      if (this.statements.insertProfile.run(row).changes === 1) {
        this.statements.insertPanels.run(row.id, profile.panels)
        return true
      }
      if (this.statements.tokenTaken.get(profile.token) !== undefined) break
    }
    this.drop(`profile ${profile.token} could not be stored: its token or every id of its millisecond is taken`)
    return false
  }

  private drop (reason: string): void {
    this.dropped++
    this.onDrop(reason)
  }

  private schedule (delayMs: number): void {
    if (this.timer !== null && delayMs > 0) return
    this.cancelTimer()
    this.timer = setTimeout(() => this.flush(), delayMs)
    this.timer.unref()
  }

  private cancelTimer (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}

function withoutId ({ id: _id, ...summary }: SummaryRow): ProfileSummary {
  return summary
}

function toStoredProfile (row: ProfileRow | undefined): StoredProfile | undefined {
  if (row === undefined) return undefined
  return {
    ...withoutId(row),
    parentToken: row.parent_token,
    type: row.type,
    route: row.route,
    panels: JSON.parse(row.panels) as Record<string, unknown>
  }
}
