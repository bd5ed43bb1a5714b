import type { Database } from 'better-sqlite3'
import { ID_SLOTS_PER_MS, type ProfileRecord, type ProfileSummary, type SearchFilters, type StoredProfile } from './profile.js'
import { ProfileSearch } from './profile-search.js'
import { TokenSet } from './token.js'
import type { WriterClient } from './writer-client.js'
import type { WriterMessage } from './writer-protocol.js'

export interface StoreOptions {
  /** Profiles queued or being written at most; past that new ones are dropped and counted. */
  maxQueue: number
  /** Hand a batch to the writer as soon as this many are queued. */
  batchSize: number
  /** Otherwise hand it over this long after the first queued profile. */
  flushDelayMs: number
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { maxQueue: 10_000, batchSize: 500, flushDelayMs: 20 }

/**
 * ProfileStore, on the request thread: queues profiles (bounded), hands them in batches to the
 * writer thread, keeps the set of tokens in use, and answers searches from its own connection.
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
  private readonly reader: ProfileSearch

  constructor (
    db: Database,
    private readonly writer: WriterClient,
    private readonly options: StoreOptions = DEFAULT_STORE_OPTIONS,
    private readonly onDrop: (reason: string) => void = () => {}
  ) {
    this.reader = new ProfileSearch(db)
    // One pass over the stored tokens fills the token set and counts the profiles.
    this.count = 0
    for (const token of this.reader.tokens()) {
      this.tokens.add(token)
      this.count++
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
      this.drop('the writer is behind and the queue is full')
      return false
    }
    this.queue.push(profile)
    if (this.queue.length >= this.options.batchSize) this.schedule(0)
    else this.schedule(this.options.flushDelayMs)
    return true
  }

  /** Hands every queued profile to the writer and resolves once all handed over are stored. */
  async flush (): Promise<void> {
    this.handOver()
    await Promise.all([...this.batches])
  }

  /** Runs the retention bounds now (as seen at `now`), after everything queued is stored. */
  async prune (now = Date.now()): Promise<void> {
    await this.flush()
    this.count = (await this.writer.request({ type: 'prune', now })).count
  }

  /** Stores what is left, then closes the writer thread (the read connection is closed by its owner). */
  async close (): Promise<void> {
    await this.flush()
    await this.writer.close()
  }

  search (filters: SearchFilters): ProfileSummary[] {
    return this.reader.search(filters)
  }

  find (token: string): StoredProfile | undefined {
    return this.reader.find(token)
  }

  latest (type = 'request'): StoredProfile | undefined {
    return this.reader.latest(type)
  }

  fileBytes (): number {
    return this.reader.fileBytes()
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
      this.count = answer.count
      if (answer.error !== undefined) {
        for (const profile of batch) this.releaseToken(profile.token)
        this.drop(`a batch of ${batch.length} profiles could not be written: ${answer.error}`, batch.length)
        return
      }
      for (const token of answer.rejected ?? []) {
        this.releaseToken(token)
        this.drop(`profile ${token} could not be stored: its token or every id of its millisecond is taken`)
      }
    })
    this.batches.add(written)
  }

  private drop (reason: string, profiles = 1): void {
    this.dropped += profiles
    this.onDrop(reason)
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
