import { randomUUID } from 'node:crypto'
import type { StatisticsStamp } from '../engine/contract.js'
import type { QueuedProfile } from '../capture/capture.js'
import type { StoreHealth } from './health.js'
import { profileBytes } from './profile-size.js'
import { MissingTallies, type MissingWindow, type StampedTallies } from '../stats/missing.js'
import { batchLength, EMPTY_STATISTICS, PendingStatistics, requestOf, type StatisticsBatch } from './statistics-columns.js'
import type { WriterClient } from './writer-client.js'
import { PackedRuns } from '../panels/timeline/run-slab.js'

export interface StoreOptions {
  /** Profiles queued or being written at most; past that new ones are dropped and counted. */
  maxQueue: number
  /** Estimated bytes (profile-size.ts) queued or being written at most; past that new ones are dropped and counted. */
  maxQueueBytes: number
  /** Hand a batch to the writer as soon as this many are queued; a batch holds at most this many. */
  batchSize: number
  /** A batch holds at most this many estimated bytes (and at least one profile). */
  maxBatchBytes: number
  /** Otherwise hand it over this long after the first queued profile. */
  flushDelayMs: number
  /**
   * Requests recorded for the statistics only ride with a batch once the first of them has waited
   * this long (or `statisticsPerBatch` wait, or on flush): fewer, larger updates of the rollups. A
   * crash loses at most this long of their counts (profiles: at most `flushDelayMs`).
   */
  statisticsDelayMs: number
  /** Statistics-only requests handed over with one batch at most (10,000); that many waiting are handed over at once. */
  statisticsPerBatch: number
  /** While the store cannot be written, its oldest batch is retried this often (and the read connection reopened). */
  retryDelayMs: number
  /**
   * Requests recorded for the statistics only, waiting or being written, at most (each five array
   * slots, statistics-columns.ts: about 4 MiB at 100,000); past that new ones are dropped and counted.
   */
  maxStatistics: number
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = {
  maxQueue: 10_000,
  maxQueueBytes: 64 * 1024 * 1024,
  batchSize: 500,
  maxBatchBytes: 4 * 1024 * 1024,
  flushDelayMs: 50,
  statisticsDelayMs: 1000,
  statisticsPerBatch: 10_000,
  retryDelayMs: 1000,
  maxStatistics: 100_000
}

/** What the queue tells its owner. */
export interface QueueEvents {
  /** Profiles that will not be stored (their tokens are free again); `reason` for the log. */
  onDrop: (tokens: string[], reason: string) => void
  /**
   * Requests that will not be counted in the statistics (tallied per period of their start, and
   * written with a later hand-over: MissingTallies); `reason` for the log.
   */
  onStatisticsDrop: (requests: number, reason: string) => void
  /** A batch was stored; `count` is the number of stored profiles the writer reports. */
  onWritten: (count: number) => Promise<void>
}

/** A queued profile with its estimated bytes and its place in arrival order. */
interface Entry { profile: QueuedProfile, bytes: number, seq: number }

function mebibytes (bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

/**
 * The bounded queue between the request thread and the writer, and its batch scheduler. Bounded
 * in profiles and in estimated bytes, both counting the batch being written. One batch at a time
 * is with the writer (at most `batchSize` profiles and `maxBatchBytes`): the writer's copy of the
 * queue is never more than that. A batch the writer answers with an error (a storage fault, the
 * writer thread gone, anything not proven to be one profile's) goes back to the front of the
 * queue and is retried, alone, every `retryDelayMs`; what overflows the queue meanwhile is
 * dropped and counted. Only the profiles the writer sets aside (write-batch.ts) are lost.
 * A profile dropped at either bound, or set aside, is still counted in the statistics: its request
 * goes on as a statistics-only one (issue 37); one that cannot be either is tallied as missing
 * from its minute's statistics, and the tallies are written with the next hand-over.
 */
export class ProfileQueue {
  private queue: Entry[] = []
  private queuedBytes = 0
  private inFlight = 0
  private inFlightBytes = 0
  /** When the batch now with the writer was handed over (null: none is). */
  private inFlightSince: number | null = null
  private pushed = 0
  /** The batch with the writer, until its answer has been handled. */
  private current: Promise<void> | null = null
  private timer: NodeJS.Timeout | null = null
  private timerDueAt = 0
  /** Requests recorded for the statistics only, oldest first: they ride with a batch once due. */
  private statistics = new PendingStatistics()
  /** When the oldest of `statistics` was queued (Date.now()); null while none waits. */
  private statisticsSince: number | null = null
  private statisticsInFlight = 0
  private statisticsPushed = 0
  /** Statistics-only requests counted or set aside, in the order they were pushed. */
  private statisticsSettled = 0
  /** This queue's source in the statistics stamps: random, made once (a restarted process is a new source). */
  private readonly source = randomUUID()
  /** The seq of the last hand-over that carried statistics-only requests. */
  private stampSeq = 0
  /**
   * The hand-over of statistics-only requests that came back unsettled, with its stamp: handed over
   * again, before any newer ones, exactly as it was and with the same stamp, so that the engine
   * knows it if the first attempt was committed after all.
   */
  private retry: { seq: number, batch: StatisticsBatch, missing: MissingWindow[] } | null = null
  /** Requests that could not be counted, per period of their start, until a hand-over writes them. */
  private readonly missing = new MissingTallies()
  /** The tallies of the hand-over with the writer, with its stamp's seq (shown with the statistics until answered, unless the store recorded the stamp). */
  private missingInFlight: { seq: number, missing: MissingWindow[] } | null = null

  constructor (
    private readonly writer: WriterClient,
    private readonly health: StoreHealth,
    private readonly options: StoreOptions,
    private readonly events: QueueEvents
  ) {}

  /** Profiles waiting or being written. */
  get size (): number {
    return this.queue.length + this.inFlight
  }

  /** Since when the writer has held the batch it has not answered yet, or null. */
  get writeWaitingSince (): number | null {
    return this.inFlightSince
  }

  /** Estimated bytes of the profiles waiting or being written. */
  get bytes (): number {
    return this.queuedBytes + this.inFlightBytes
  }

  /** Queues a profile; never writes, never waits, never throws. Returns false when it was dropped. */
  push (profile: QueuedProfile): boolean {
    const bytes = profileBytes(profile)
    const full = this.size >= this.options.maxQueue
      ? `${this.options.maxQueue} profiles`
      : this.bytes + bytes > this.options.maxQueueBytes ? `${mebibytes(this.options.maxQueueBytes)} with this one's ${mebibytes(bytes)}` : null
    if (full !== null) {
      this.events.onDrop([profile.token], `${this.health.failing ? 'the store is failing' : 'the writer is behind'} and the queue is full (${full})`)
      this.countInstead(profile)
      return false
    }
    this.queue.push({ profile, bytes, seq: ++this.pushed })
    this.queuedBytes += bytes
    this.scheduleNext()
    return true
  }

  /** Statistics-only requests waiting: new ones, and a hand-over to try again. */
  private get statisticsWaiting (): number {
    return this.statistics.length + (this.retry === null ? 0 : batchLength(this.retry.batch))
  }

  /** Whether a statistics hand-over has something to carry: requests, or tallies of missing ones. */
  private get statisticsPending (): boolean {
    return this.statisticsWaiting > 0 || this.missing.size > 0 || (this.retry !== null && this.retry.missing.length > 0)
  }

  /** A profile that will not be stored: its request is counted for the statistics only (or tallied as missing). */
  private countInstead (profile: QueuedProfile): void {
    const request = requestOf(profile)
    this.pushStatistics(request.startMs, request.method, request.route, request.statusCode, request.durationMs)
  }

  /**
   * Tallies requests the statistics will not count, by their start (one time for all, or one each):
   * written to the store with the next hand-over. The owner counts them (onStatisticsDrop).
   */
  noteMissing (startMs: number | ArrayLike<number>, requests = 1): void {
    const wasPending = this.statisticsPending
    if (typeof startMs === 'number') this.missing.add(startMs, requests)
    else for (let i = 0; i < startMs.length; i++) this.missing.add(startMs[i] as number)
    if (!wasPending && this.statisticsPending) {
      this.statisticsSince = Date.now()
      this.scheduleNext()
    }
  }

  /**
   * The tallies of missing requests not known to be written, each with the stamp it is (or will be)
   * handed over under: with the writer, to retry, and waiting (with the next hand-over's: a retry
   * keeps its own seq). The store holds them already if it recorded that stamp (a commit's answer
   * on its way or lost, or a hand-over during the read): the reader tells, in the snapshot of the
   * stored tallies, so that none is counted twice.
   */
  get missingNotWritten (): StampedTallies[] {
    const handed = [this.retry, this.missingInFlight, { seq: this.stampSeq + 1, missing: this.missing.peek() }]
    return handed.flatMap(tallies => tallies === null || tallies.missing.length === 0 ? [] : [{ source: this.source, seq: tallies.seq, missing: tallies.missing }])
  }

  /** Queues a request recorded for the statistics only; never writes, never waits, never throws. */
  pushStatistics (startMs: number, method: string, route: string | null, statusCode: number, durationMs: number): boolean {
    const waiting = this.statisticsWaiting
    if (waiting + this.statisticsInFlight >= this.options.maxStatistics) {
      this.noteMissing(startMs)
      this.events.onStatisticsDrop(1, `${this.health.failing ? 'the store is failing' : 'the writer is behind'} and ${this.options.maxStatistics} requests wait to be counted`)
      return false
    }
    const pending = this.statisticsPending
    this.statistics.push(startMs, method, route, statusCode, durationMs)
    this.statisticsPushed++
    // Only the first one waiting, and the one that fills a hand-over, move the next hand-over:
    // the others ride with it (no clock read, no timer, per request).
    if (!pending) {
      this.statisticsSince = Date.now()
      this.scheduleNext()
    } else if (this.statistics.length === this.options.statisticsPerBatch) {
      this.scheduleNext()
    }
    return true
  }

  /**
   * Hands the profiles queued now to the writer, batch after batch, and resolves once the writer
   * has answered for them; a failing store gets one try (close() then counts what is left).
   */
  async flush (): Promise<void> {
    const last = this.pushed
    const lastStatistics = this.statisticsPushed
    let tried = false
    for (;;) {
      if (this.current !== null) {
        await this.current
        continue
      }
      const oldest = this.queue[0]
      const profilesDone = oldest === undefined || oldest.seq > last
      const statisticsDone = this.statisticsSettled >= lastStatistics && this.missing.size === 0 && this.retry === null
      if ((profilesDone && statisticsDone) || (tried && this.health.failing)) return
      tried = true
      this.handOver(true)
    }
  }

  /**
   * Stops the timer and takes out what is left (after a last flush): the profiles, the number of
   * statistics-only requests, and the tallies of missing requests not written.
   */
  drain (): { profiles: QueuedProfile[], statistics: number, missing: MissingWindow[] } {
    this.cancelTimer()
    const left = this.queue.map(entry => entry.profile)
    const statistics = this.statisticsWaiting
    const missing = [...this.missing.take(), ...this.retry?.missing ?? []]
    this.statistics.clear()
    this.queue = []
    this.queuedBytes = 0
    this.statisticsSince = null
    this.retry = null
    return { profiles: left, statistics, missing }
  }

  /** The oldest profiles, up to `batchSize` of them and `maxBatchBytes` (one at least). */
  private takeBatch (): { batch: Entry[], bytes: number } {
    let bytes = 0
    let count = 0
    for (const entry of this.queue) {
      if (count === this.options.batchSize || (count > 0 && bytes + entry.bytes > this.options.maxBatchBytes)) break
      bytes += entry.bytes
      count++
    }
    const batch = this.queue.splice(0, count)
    this.queuedBytes -= bytes
    return { batch, bytes }
  }

  /** Hands the next batch over; the statistics-only requests go with it when due (always with `flush`). */
  private handOver (flush: boolean): void {
    this.cancelTimer()
    if (this.current !== null) return
    const withStatistics = this.statisticsPending && (flush || this.statisticsDue())
    if (this.queue.length === 0 && !withStatistics) {
      this.scheduleNext()
      return
    }
    const { batch, bytes } = this.takeBatch()
    const { statistics, stamp, missing } = withStatistics ? this.takeStatistics() : { statistics: EMPTY_STATISTICS, stamp: undefined, missing: [] }
    const statisticsCount = batchLength(statistics)
    this.inFlight = batch.length
    this.inFlightBytes = bytes
    this.statisticsInFlight = statisticsCount
    this.missingInFlight = stamp === undefined ? null : { seq: stamp.seq, missing }
    this.inFlightSince = Date.now()
    const profiles = batch.map(entry => entry.profile)
    // The captures' hook runs cross as one transferred buffer (their slots hold offsets until answered).
    const packed = PackedRuns.of(profiles)
    const request = { type: 'write' as const, batch: profiles, ...(packed === null ? {} : { runs: packed.runs }), statistics, ...(stamp === undefined ? {} : { stamp }), ...(missing.length === 0 ? {} : { missing }) }
    this.current = this.writer.request(request).then(async answer => {
      // Tried again: the whole batch on an error, unless the writer names the profiles to retry.
      const retry = answer.retry === undefined ? null : new Set(answer.retry)
      const kept = answer.error === undefined ? [] : retry === null ? batch : batch.filter(entry => retry.has(entry.profile.token))
      const keptProfiles = new Set<QueuedProfile>(kept.map(entry => entry.profile))
      packed?.settle(capture => keptProfiles.has(capture))
      this.inFlight = 0
      this.inFlightBytes = 0
      this.statisticsInFlight = 0
      this.missingInFlight = null
      this.inFlightSince = null
      // Counted (or set aside) unless the answer is an error that did not settle them: then tried
      // again, first, as they were and with their stamp (the first attempt may have been committed).
      if (answer.error !== undefined && answer.statisticsSettled !== true) {
        if ((statisticsCount > 0 || missing.length > 0) && stamp !== undefined) {
          if (!this.statisticsPending) this.statisticsSince = Date.now()
          this.retry = { seq: stamp.seq, batch: statistics, missing }
        }
      } else {
        this.statisticsSettled += statisticsCount
      }
      if (answer.statisticsLost !== undefined) {
        // Not counted after all: tallied as missing from their minutes (the hand-over's own tallies
        // were written alone: writeBatch).
        this.noteMissing(statistics.startMs)
        this.events.onStatisticsDrop(statisticsCount, answer.statisticsLost)
      }
      if (answer.error !== undefined) {
        // Kept, oldest first, and tried again later, alone: only what the writer proved to be one
        // profile's fault is set aside (below); an error is the store's, whatever its kind.
        this.queue = kept.concat(this.queue)
        this.queuedBytes += kept.reduce((sum, entry) => sum + entry.bytes, 0)
        this.health.fail(answer.error)
        if ((answer.written ?? 0) > 0) await this.events.onWritten(answer.count)
      } else {
        await this.events.onWritten(answer.count)
        this.health.recover()
      }
      // A profile set aside never reached the rollups: its request is counted for the statistics only.
      const byToken = answer.unshaped === undefined || answer.unshaped.length === 0 ? null : new Map(batch.map(entry => [entry.profile.token, entry.profile]))
      for (const { token, reason } of answer.unshaped ?? []) {
        this.events.onDrop([token], reason)
        const profile = byToken?.get(token)
        if (profile !== undefined) this.countInstead(profile)
      }
      for (const token of answer.rejected ?? []) {
        this.events.onDrop([token], `profile ${token} could not be stored: its token or every id of its millisecond is taken`)
      }
    }).finally(() => {
      this.current = null
      this.scheduleNext()
    })
  }

  /**
   * The statistics-only requests of the next hand-over and their stamp: the unsettled ones again
   * with their stamp, else the oldest (up to statisticsPerBatch) with the next one.
   */
  private takeStatistics (): { statistics: StatisticsBatch, stamp?: StatisticsStamp, missing: MissingWindow[] } {
    const retry = this.retry
    this.retry = null
    const statistics = retry?.batch ?? this.statistics.take(this.options.statisticsPerBatch)
    const missing = retry?.missing ?? this.missing.take()
    // What is left (past the batch's statisticsPerBatch, or the new ones behind a retry) is handed over next, at once (scheduleNext).
    if (!this.statisticsPending) this.statisticsSince = null
    if (batchLength(statistics) === 0 && missing.length === 0) return { statistics, missing }
    const seq = retry?.seq ?? ++this.stampSeq
    // One hand-over at a time is with the writer, and every earlier one was answered as settled:
    // this one is the lowest still awaiting an answer.
    return { statistics, stamp: { source: this.source, seq, lowestOutstanding: seq }, missing }
  }

  /** Whether the statistics-only requests go with the next hand-over: a retry of theirs, statisticsPerBatch of them, or the oldest waited long enough. */
  private statisticsDue (): boolean {
    return this.retry !== null || this.statistics.length >= this.options.statisticsPerBatch ||
      (this.statisticsSince !== null && Date.now() - this.statisticsSince >= this.options.statisticsDelayMs)
  }

  /**
   * The next hand-over: a retry while failing, at once for a full batch, after the flush delay for
   * profiles, and when they are due for statistics-only requests alone.
   */
  private scheduleNext (): void {
    if ((this.queue.length === 0 && !this.statisticsPending) || this.current !== null) return
    if (this.health.failing) this.schedule(this.options.retryDelayMs)
    else if (this.queue.length >= this.options.batchSize || this.queuedBytes >= this.options.maxBatchBytes || this.statistics.length >= this.options.statisticsPerBatch) this.schedule(0)
    else if (this.queue.length > 0) this.schedule(this.options.flushDelayMs)
    else if (this.statisticsDue()) this.schedule(0)
    else this.schedule((this.statisticsSince ?? Date.now()) + this.options.statisticsDelayMs - Date.now())
  }

  /** Hands over in `delayMs`, unless a hand-over is due by then already. */
  private schedule (delayMs: number): void {
    const dueAt = Date.now() + delayMs
    if (this.timer !== null && this.timerDueAt <= dueAt) return
    this.cancelTimer()
    this.timerDueAt = dueAt
    this.timer = setTimeout(() => { this.handOver(false) }, delayMs)
    this.timer.unref()
  }

  private cancelTimer (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
