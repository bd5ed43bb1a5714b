import type { QueuedProfile } from '../capture/capture.js'
import type { ProfileSummary, SearchFilters, StoredProfile } from '../profile.js'
import type { PeriodRow, RollupRange } from '../stats/trend.js'
import type { StoreReader, WindowStats } from '../engine/contract.js'
import { StoreHealth, type HealthLog, type StoreHealthSnapshot } from './health.js'
import { ProfileQueue, type StoreOptions } from './profile-queue.js'
import { ReaderConnection } from './reader-connection.js'
import { Reservations } from './reservations.js'
import type { WriterClient } from './writer-client.js'
import type { WriterMessage } from './writer-protocol.js'
import type { ExportState } from '../schemas.js'

export { DEFAULT_STORE_OPTIONS, type StoreOptions } from './profile-queue.js'

export interface StoreEvents extends HealthLog {
  /** A profile was dropped (queue full, token clash); not called for faults, which StoreHealth reports. */
  onDrop: (reason: string) => void
}

/**
 * ProfileStore, on the request thread, the small facade the recorder and the pages use: tokens
 * and ids (Reservations), the bounded queue to the writer thread (ProfileQueue), the reader with
 * its reopening (ReaderConnection) and the store's health. It does not know which engine is behind.
 */
export class ProfileStore {
  /** Profiles dropped because the writer fell behind or could not store them. */
  dropped = 0
  /**
   * Requests the statistics could not count (neither their profile nor a statistics-only count of
   * them could be kept: that queue full, refused by the store, the process closing while the store
   * fails): tallied per minute and written to the store (`missing` on the statistics).
   */
  statisticsDropped = 0
  /** Stored profiles, as the writer (or the reader at open) last reported. */
  count = 0
  readonly health: StoreHealth
  /** The OTLP export's counts and state, as the writer last reported them; null: profiles are not exported. */
  private exportState: ExportState | null = null
  /** What writer threads that ended had counted (a restarted one counts from 0); what they held waiting is lost, counted as dropped. */
  private readonly exportBefore = { exported: 0, dropped: 0 }
  private readonly reservations = new Reservations()
  private readonly queue: ProfileQueue
  private readonly reader: ReaderConnection

  constructor (
    /** Opens (and migrates) the read side; it may reject while the store is unavailable. */
    openReader: () => Promise<StoreReader>,
    private readonly writer: WriterClient,
    options: StoreOptions,
    private readonly events: StoreEvents,
    /** The deployment this instance writes as: its tallies not yet written show in its statistics (null: in every deployment's). */
    private readonly deployment: string | null = null
  ) {
    this.health = new StoreHealth(events, () => ({ dropped: this.dropped, queued: this.queue.size, statisticsDropped: this.statisticsDropped, writeWaitingSince: this.queue.writeWaitingSince }))
    this.queue = new ProfileQueue(writer, this.health, options, {
      onDrop: (tokens, reason) => {
        for (const token of tokens) this.releaseToken(token)
        this.drop(reason, tokens.length)
      },
      onStatisticsDrop: (requests, reason) => { this.countStatisticsDrop(reason, requests) },
      onWritten: async count => {
        this.count = count
        // At most once per retry delay, not once per batch, while the store cannot be read.
        await this.reader.reopenIfDue()
      }
    })
    this.reader = new ReaderConnection(openReader, options.retryDelayMs, async reader => {
      // One pass over the stored tokens fills the token set and counts the profiles.
      this.count = await reader.eachToken(token => { this.reservations.reserve(token) })
    }, {
      // The read side is reported on its own: a failing reader is not a store that "cannot be
      // written", and reporting it as such made the write health flap fail/recover on every batch.
      onFailure: message => {
        events.error(`profiler: the profile store cannot be read (${message}); its pages answer 503 until it can`)
      },
      onRecovered: () => { events.info('profiler: the profile store can be read again') }
    })
  }

  /** Opens the read side now (the plugin waits for this first attempt; a failure is reported, not thrown). */
  async open (): Promise<void> {
    await this.reader.tryOpen()
  }

  /** Events of the writer thread: pruned tokens are free again. */
  onWriterMessage (message: WriterMessage): void {
    if (message.type === 'deleted') {
      for (const token of message.tokens) this.releaseToken(token)
      this.count = message.count
    } else if (message.type === 'taken') {
      for (const token of message.tokens) this.reservations.reserve(token)
    } else if (message.type === 'bound') {
      this.health.overBound(message.reason)
    } else if (message.type === 'export') {
      if (message.first === true && this.exportState !== null) {
        this.exportBefore.exported = this.exportState.exportedSpans
        this.exportBefore.dropped = this.exportState.droppedSpans + this.exportState.queuedSpans
      }
      const { state } = message
      this.exportChanged({ ...state, exportedSpans: state.exportedSpans + this.exportBefore.exported, droppedSpans: state.droppedSpans + this.exportBefore.dropped })
    }
  }

  nextId (startMs: number): number {
    return this.reservations.nextId(startMs)
  }

  /** A token no queued or stored profile has, reserved for a profile about to be queued (`source`: where tests draw them from). */
  claimToken (source?: () => string): string {
    return this.reservations.claim(source)
  }

  /** Reserves a token for a profile about to be queued. */
  reserveToken (token: string): void {
    this.reservations.reserve(token)
  }

  /** Gives back the token of a profile that will not be stored. */
  releaseToken (token: string): void {
    this.reservations.release(token)
  }

  /** Estimated bytes of the profiles queued or being written (bounded by `maxQueueBytes`). */
  get queuedBytes (): number {
    return this.queue.bytes
  }

  /** Queues a profile; never writes, never waits, never throws. Returns false when it was dropped. */
  enqueue (profile: QueuedProfile): boolean {
    return this.queue.push(profile)
  }

  /**
   * Queues a request not kept as a profile, for the statistics only (no token, no capture): the
   * writer counts it in the rollups. Never writes, never waits, never throws.
   */
  enqueueStatistics (startMs: number, method: string, route: string | null, statusCode: number, durationMs: number): boolean {
    return this.queue.pushStatistics(startMs, method, route, statusCode, durationMs)
  }

  /** Hands the queued profiles to the writer, batch after batch, and resolves once it has answered for them (one try while the store fails). */
  async flush (): Promise<void> {
    await this.queue.flush()
  }

  healthSnapshot (): StoreHealthSnapshot {
    const snapshot = this.health.snapshot()
    return this.exportState === null ? snapshot : { ...snapshot, export: this.exportState }
  }

  /** Logs the export's faults once each way, as the store's own: when spans start being retried or dropped, and when the collector takes them again. */
  private exportChanged (state: ExportState): void {
    const before = this.exportState?.state ?? 'ok'
    this.exportState = state
    if (state.state === before) return
    if (state.state === 'ok') this.events.info(`profiler: the OTLP collector takes spans again; ${state.droppedSpans} span(s) dropped since the service started`)
    else if (before === 'ok') this.events.error(`profiler: profiles cannot be sent to the OTLP collector (${state.reason ?? ''}); spans are retried, then dropped and counted`)
  }

  /** Runs the retention bounds now (as seen at `now`), after everything queued is stored. */
  async prune (now = Date.now()): Promise<void> {
    await this.flush()
    const answer = await this.writer.request({ type: 'prune', now })
    if (answer.error === undefined) this.count = answer.count
  }

  /** Stores what is left (one last try if the store is failing), then closes both sides. */
  async close (): Promise<void> {
    await this.flush()
    const { profiles: left, statistics, missing } = this.queue.drain()
    if (left.length > 0) {
      this.dropped += left.length
      this.events.error(`profiler: ${left.length} profile(s) could not be stored before shutdown: ${this.health.snapshot().reason ?? 'the store is failing'}`)
    }
    // Their requests are not counted in the statistics either.
    const notCounted = statistics + left.length
    if (notCounted > 0) {
      this.statisticsDropped += notCounted
      this.events.error(`profiler: ${notCounted} request(s) could not be counted in the statistics before shutdown: ${this.health.snapshot().reason ?? 'the store is failing'}`)
    }
    const notWritten = missing.reduce((sum, window) => sum + window.count, 0)
    if (notWritten > 0) {
      const periods = missing.map(window => `${new Date(window.startMs).toISOString()} (${window.count})`).join(', ')
      this.events.error(`profiler: the statistics lack ${notWritten} request(s) that could not be counted, and the store could not be told before shutdown: from ${periods}`)
    }
    await this.writer.close()
    await this.reader.close()
  }

  async search (filters: SearchFilters): Promise<ProfileSummary[]> {
    return await this.reader.use(reader => reader.search(filters))
  }

  /** The HAR document of a search's profiles. */
  async searchHar (filters: SearchFilters, version: string): Promise<string> {
    return await this.reader.use(async reader => await reader.searchHar(filters, version))
  }

  /**
   * The profile of a token. One still queued (its X-Debug-Token-Link opened as soon as the answer
   * came) is written first: only a token reserved here can be queued, so an unknown token never
   * costs a flush, and neither does any token while the store is failing.
   */
  async find (token: string): Promise<StoredProfile | undefined> {
    const found = await this.reader.use(reader => reader.find(token))
    if (found !== undefined || !this.reservations.isTaken(token) || this.health.failing) return found
    await this.flush()
    return await this.reader.use(reader => reader.find(token))
  }

  async latest (type = 'request'): Promise<StoredProfile | undefined> {
    return await this.reader.use(reader => reader.latest(type))
  }

  async deployments (): Promise<string[]> {
    return await this.reader.use(reader => reader.deployments())
  }

  /**
   * Route statistics over the window ending at `nowMs` (of one deployment, if named), from the
   * rollups (never the profiles); `missing` adds this instance's tallies not yet written (the
   * reader leaves out those the store holds already: their stamp recorded).
   */
  async routeStats (nowMs: number, windowMs: number, deployment?: string): Promise<WindowStats> {
    const ours = deployment === undefined || this.deployment === null || deployment === this.deployment
    const stamped = ours ? this.queue.missingNotWritten : []
    return await this.reader.use(reader => reader.routeStats(nowMs, windowMs, deployment, stamped))
  }

  /** The rollup rows of a range, per line and period (the trends, and where a profile stands on its route). */
  async rollupPeriods (range: RollupRange): Promise<PeriodRow[]> {
    return await this.reader.use(reader => reader.rollupPeriods(range))
  }

  /** The tokens of the profiles just before (older) and just after (newer) this one, of the same type. */
  async neighbours (token: string, type = 'request'): Promise<{ previous: string | null, next: string | null }> {
    return await this.reader.use(reader => reader.neighbours(token, type))
  }

  /** Bytes the stored profiles take (the SQLite file, or the PostgreSQL relations). */
  async storeBytes (): Promise<number> {
    return await this.reader.use(reader => reader.storeBytes())
  }

  /** Counts profiles that will not be stored and reports them (at most every few seconds, never during a fault). */
  drop (reason: string, profiles = 1): void {
    this.dropped += profiles
    // During a fault the recovery line reports the losses.
    if (!this.health.failing) this.events.onDrop(reason)
  }

  /**
   * Requests the statistics will not count, started at `startMs`: the statistics say how many, and
   * from which minute (issue 24: exact, or said not to be; issue 37).
   */
  dropStatistics (reason: string, requests = 1, startMs = Date.now()): void {
    this.queue.noteMissing(startMs, requests)
    this.countStatisticsDrop(reason, requests)
  }

  private countStatisticsDrop (reason: string, requests: number): void {
    this.statisticsDropped += requests
    if (!this.health.failing) this.events.onDrop(`${requests} request(s) not counted in the statistics: ${reason}`)
  }
}
