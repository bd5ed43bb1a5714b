import type { Database } from 'better-sqlite3'
import { HttpError } from '../../../lib/http-error.js'
import { Reopening } from '../../../lib/sqlite/reopening.js'
import { ID_SLOTS_PER_MS, type ProfileRecord, type ProfileSummary, type SearchFilters, type StoredProfile } from '../profile.js'
import { ProfileSearch } from './reader.js'
import type { RouteStats } from '../stats/rollup.js'
import { StoreHealth, type HealthLog, type StoreHealthSnapshot } from './health.js'
import { TokenSet } from '../collect/token.js'
import type { WriterClient } from './writer-client.js'
import type { WriterMessage } from '../writer/protocol.js'

export interface StoreOptions {
  /** Profiles queued or being written at most; past that new ones are dropped and counted. */
  maxQueue: number
  /** Hand a batch to the writer as soon as this many are queued. */
  batchSize: number
  /** Otherwise hand it over this long after the first queued profile. */
  flushDelayMs: number
  /** While the store cannot be written, the queue is retried this often (and the read connection reopened). */
  retryDelayMs: number
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { maxQueue: 10_000, batchSize: 500, flushDelayMs: 20, retryDelayMs: 1000 }

export interface StoreEvents extends HealthLog {
  /** A profile was dropped (queue full, token clash); not called for faults, which StoreHealth reports. */
  onDrop: (reason: string) => void
}

/**
 * ProfileStore, on the request thread: queues profiles (bounded), hands them in batches to the
 * writer thread, keeps the set of tokens in use, and answers searches from its own connection.
 * A batch the writer cannot store (store locked, full, unwritable) goes back to the queue and is
 * retried; only what overflows the queue meanwhile is lost, and counted.
 */
export class ProfileStore {
  /** Profiles dropped because the writer fell behind or could not store them. */
  dropped = 0
  /** Stored profiles, as the writer last reported. */
  count: number
  private queue: ProfileRecord[] = []
  private inFlight = 0
  private readonly batches = new Set<Promise<unknown>>()
  private timer: NodeJS.Timeout | null = null
  private idCounter = 0
  private readonly tokens = new TokenSet()
  private readonly reader: Reopening<{ db: Database, search: ProfileSearch }>
  readonly health: StoreHealth

  constructor (
    /** Opens (and migrates) the read connection; it may throw while the store is unavailable. */
    private readonly openReader: () => Database,
    private readonly writer: WriterClient,
    private readonly options: StoreOptions,
    private readonly events: StoreEvents
  ) {
    this.count = 0
    this.health = new StoreHealth(events, () => ({ dropped: this.dropped, queued: this.queue.length + this.inFlight }))
    // The read connection is reported on its own: a failing reader is not a store that "cannot be
    // written", and reporting it as such made the write health flap fail/recover on every batch.
    this.reader = new Reopening(() => this.openSearch(), options.retryDelayMs, (message, first) => {
      if (first) events.error(`profiler: the profile store cannot be read (${message}); its pages answer 503 until it can`)
    })
    this.reader.tryOpen()
  }

  /** The read connection, opened now if it could not be before (at most once per retry delay). */
  private readConnection (): ProfileSearch {
    const reader = this.reader.get()
    if (reader === null) throw new HttpError(503, `The profile store is unavailable: ${this.reader.failure}`, { name: 'ServiceUnavailableError' })
    return reader.search
  }

  private openSearch (): { db: Database, search: ProfileSearch } {
    const db = this.openReader()
    try {
      const search = new ProfileSearch(db)
      // One pass over the stored tokens fills the token set and counts the profiles.
      let count = 0
      for (const token of search.tokens()) {
        this.tokens.add(token)
        count++
      }
      this.count = count
      if (this.reader.failure !== '') this.events.info('profiler: the profile store can be read again')
      return { db, search }
    } catch (err) {
      db.close()
      throw err
    }
  }

  /** Events of the writer thread: pruned tokens are free again. */
  onWriterMessage (message: WriterMessage): void {
    if (message.type === 'deleted') {
      for (const token of message.tokens) this.tokens.delete(token)
      this.count = message.count
    }
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

  /** Queues a profile; never writes, never waits, never throws. Returns false when it was dropped. */
  enqueue (profile: ProfileRecord): boolean {
    if (this.queue.length + this.inFlight >= this.options.maxQueue) {
      this.releaseToken(profile.token)
      this.drop(this.health.failing ? 'the store is failing and the queue is full' : 'the writer is behind and the queue is full')
      return false
    }
    this.queue.push(profile)
    // While the store is failing, only the retry timer hands profiles over.
    if (this.health.failing) {
      this.schedule(this.options.retryDelayMs)
      return true
    }
    if (this.queue.length >= this.options.batchSize) this.schedule(0)
    else this.schedule(this.options.flushDelayMs)
    return true
  }

  /** Hands every queued profile to the writer and resolves once the writer has answered for all of them. */
  async flush (): Promise<void> {
    this.handOver()
    await Promise.all([...this.batches])
  }

  healthSnapshot (): StoreHealthSnapshot {
    return this.health.snapshot()
  }

  /** Runs the retention bounds now (as seen at `now`), after everything queued is stored. */
  async prune (now = Date.now()): Promise<void> {
    await this.flush()
    const answer = await this.writer.request({ type: 'prune', now })
    if (answer.error === undefined) this.count = answer.count
  }

  /** Stores what is left (one last try if the store is failing), then closes both connections. */
  async close (): Promise<void> {
    await this.flush()
    this.cancelTimer()
    if (this.queue.length > 0) {
      this.dropped += this.queue.length
      this.events.error(`profiler: ${this.queue.length} profile(s) could not be stored before shutdown: ${this.health.snapshot().reason ?? 'the store is failing'}`)
      this.queue = []
    }
    await this.writer.close()
    this.reader.close(({ db }) => { db.close() })
  }

  search (filters: SearchFilters): ProfileSummary[] {
    return this.readConnection().search(filters)
  }

  find (token: string): StoredProfile | undefined {
    return this.readConnection().find(token)
  }

  latest (type = 'request'): StoredProfile | undefined {
    return this.readConnection().latest(type)
  }

  routeStats (nowMs: number, windowMs: number): { fromMs: number, routes: RouteStats[] } {
    return this.readConnection().routeStats(nowMs, windowMs)
  }

  neighbours (token: string, type = 'request'): { previous: string | null, next: string | null } {
    return this.readConnection().neighbours(token, type)
  }

  fileBytes (): number {
    return this.readConnection().fileBytes()
  }

  private handOver (): void {
    this.cancelTimer()
    if (this.queue.length === 0) return
    const batch = this.queue
    this.queue = []
    this.inFlight += batch.length
    const written = this.writer.request({ type: 'write', batch }).then(answer => {
      this.inFlight -= batch.length
      this.batches.delete(written)
      if (answer.error !== undefined && answer.fault === true) {
        // Kept, oldest first, and tried again later: a locked or full store loses nothing it can hold.
        this.queue = batch.concat(this.queue)
        this.health.fail(answer.error)
        this.schedule(this.options.retryDelayMs)
        return
      }
      if (answer.error !== undefined) {
        // Not the store failing: the same batch would fail again. Dropped, counted, logged.
        for (const profile of batch) this.releaseToken(profile.token)
        this.drop(`a batch of ${batch.length} profile(s) could not be written: ${answer.error}`, batch.length)
        return
      }
      this.count = answer.count
      this.reader.tryOpen()
      this.health.recover()
      for (const token of answer.rejected ?? []) {
        this.releaseToken(token)
        this.drop(`profile ${token} could not be stored: its token or every id of its millisecond is taken`)
      }
    })
    this.batches.add(written)
  }

  /** Counts profiles that will not be stored and reports them (at most every few seconds, never during a fault). */
  drop (reason: string, profiles = 1): void {
    this.dropped += profiles
    // During a fault the recovery line reports the losses.
    if (!this.health.failing) this.events.onDrop(reason)
  }

  private schedule (delayMs: number): void {
    if (this.timer !== null && delayMs > 0) return
    this.cancelTimer()
    this.timer = setTimeout(() => this.handOver(), delayMs)
    this.timer.unref()
  }

  private cancelTimer (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
