import type { Database, Statement } from 'better-sqlite3'
import { idRangeOf, ID_SLOTS_PER_MS, type ProfileRecord, type ProfileSummary, type SearchFilters, type StoredProfile } from './profile.js'

export interface StoreOptions {
  /** Profiles waiting for the writer at most; past that new ones are dropped and counted. */
  maxQueue: number
  /** Write as soon as this many are queued. */
  batchSize: number
  /** Otherwise write this long after the first queued profile. */
  flushDelayMs: number
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { maxQueue: 10_000, batchSize: 500, flushDelayMs: 20 }

interface SummaryRow { token: string, ip: string, method: string, url: string, status: number, time: string, duration_ms: number }
interface ProfileRow extends SummaryRow { parent_token: string | null, type: string, route: string | null, panels: string }

const SUMMARY_COLUMNS = 'p.token, p.ip, p.method, p.url, p.status_code AS status, p.time, p.duration_ms'

/**
 * ProfileStore: all profiler SQL. Profiles are queued on the request path and written
 * in batches, one transaction each, from a timer; close() writes what is left.
 */
export class ProfileStore {
  /** Profiles dropped because the queue was full or the row could not be written. */
  dropped = 0
  private queue: ProfileRecord[] = []
  private readonly pendingTokens = new Set<string>()
  private timer: NodeJS.Timeout | null = null
  private idCounter = 0
  private readonly insertProfile: Statement
  private readonly insertPanels: Statement
  private readonly tokenTaken: Statement<[string], { found: number }>
  private readonly byToken: Statement<[string], ProfileRow>
  private readonly newest: Statement<[string], ProfileRow>
  private readonly searches = new Map<string, Statement>()
  private readonly writeBatch: (batch: ProfileRecord[]) => number

  constructor (private readonly db: Database, private readonly options: StoreOptions = DEFAULT_STORE_OPTIONS, private readonly onDrop: (reason: string) => void = () => {}) {
    this.insertProfile = db.prepare(`
      INSERT INTO profiles (id, token, parent_token, type, ip, method, url, status_code, duration_ms, route)
      VALUES (@id, @token, @parentToken, @type, @ip, @method, @url, @statusCode, @durationMs, @route)
      ON CONFLICT DO NOTHING`)
    this.insertPanels = db.prepare('INSERT INTO profile_data (profile_id, panels) VALUES (?, ?)')
    this.tokenTaken = db.prepare('SELECT 1 AS found FROM profiles WHERE token = ?')
    const detail = `SELECT ${SUMMARY_COLUMNS}, p.parent_token, p.type, p.route, d.panels
      FROM profiles p JOIN profile_data d ON d.profile_id = p.id`
    this.byToken = db.prepare(`${detail} WHERE p.token = ?`)
    this.newest = db.prepare(`${detail} WHERE p.type = ? ORDER BY p.id DESC LIMIT 1`)
    this.writeBatch = db.transaction((batch: ProfileRecord[]) => {
      let written = 0
      for (const profile of batch) {
        if (this.insertOne(profile)) written++
      }
      return written
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
    return this.pendingTokens.has(token) || this.tokenTaken.get(token) !== undefined
  }

  /** Reserves a token until its profile is written (or dropped). */
  reserveToken (token: string): void {
    this.pendingTokens.add(token)
  }

  releaseToken (token: string): void {
    this.pendingTokens.delete(token)
  }

  /** Queues a profile; never writes, never throws. Returns false when it had to be dropped. */
  enqueue (profile: ProfileRecord): boolean {
    if (this.queue.length >= this.options.maxQueue) {
      this.pendingTokens.delete(profile.token)
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
      this.dropped += batch.length
      this.onDrop(`a batch of ${batch.length} profiles could not be written: ${(err as Error).message}`)
    }
    for (const profile of batch) this.pendingTokens.delete(profile.token)
    return written
  }

  /** Writes what is left and stops the timer (the database is closed by its owner). */
  close (): void {
    this.flush()
  }

  search (filters: SearchFilters): ProfileSummary[] {
    const where = ['p.type = @type']
    const params: Record<string, unknown> = { type: filters.type, limit: filters.limit }
    if (filters.ip !== undefined) {
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
    if (filters.url !== undefined) {
      where.push(filters.urlNegated === true ? 'instr(p.url, @url) = 0' : 'instr(p.url, @url) > 0')
      params.url = filters.url
    }
    if (filters.start !== undefined || filters.end !== undefined) {
      where.push('p.id BETWEEN @low AND @high')
      Object.assign(params, idRangeOf(filters.start, filters.end))
    }
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM profiles p WHERE ${where.join(' AND ')} ORDER BY p.id DESC LIMIT @limit`
    let statement = this.searches.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      this.searches.set(sql, statement)
    }
    return statement.all(params) as SummaryRow[]
  }

  find (token: string): StoredProfile | undefined {
    return toStoredProfile(this.byToken.get(token))
  }

  latest (type = 'request'): StoredProfile | undefined {
    return toStoredProfile(this.newest.get(type))
  }

  /**
   * Inserts one profile; a taken id moves to the next free slot of the same millisecond.
   * A stored profile is never overwritten: a taken token (or a full millisecond) drops the new one.
   */
  private insertOne (profile: ProfileRecord): boolean {
    const msBase = profile.id - (profile.id % ID_SLOTS_PER_MS)
    for (let attempt = 0; attempt < ID_SLOTS_PER_MS; attempt++) {
      const id = msBase + ((profile.id + attempt) % ID_SLOTS_PER_MS)
      const candidate = attempt === 0 ? profile : { ...profile, id }
      if (this.insertProfile.run(candidate).changes === 1) {
        this.insertPanels.run(id, profile.panels)
        return true
      }
      if (this.tokenTaken.get(profile.token) !== undefined) break
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

function toStoredProfile (row: ProfileRow | undefined): StoredProfile | undefined {
  if (row === undefined) return undefined
  return {
    token: row.token,
    ip: row.ip,
    method: row.method,
    url: row.url,
    status: row.status,
    time: row.time,
    duration_ms: row.duration_ms,
    parentToken: row.parent_token,
    type: row.type,
    route: row.route,
    panels: JSON.parse(row.panels) as Record<string, unknown>
  }
}
