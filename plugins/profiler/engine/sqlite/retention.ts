import type { ProfileWriter } from './profile-writer.js'
import type { RetentionLimits } from '../contract.js'
import { bytesTarget, countExcess, firstKeptId, PRUNE_BATCH as BATCH, Retention, STATISTICS_STAMP_MAX_AGE_MS } from '../retention-policy.js'

/** The most profiles makeRoom deletes for one batch. */
const MAKE_ROOM_WINDOW = 4 * BATCH
/** Free pages returned to the file system per step. */
const RECLAIM_PAGES = 1024
const IP_SWEEP_INTERVAL_MS = 60_000
/** Steps in a row that deleted profiles for size without lowering the bytes before pruning for size stops. */
const STALL_STEPS = 4
/** Pages of URL-index merging per step that deleted profiles (an incremental 'optimize'). */
const COMPACT_PAGES = 256

/**
 * Keeps the SQLite store within its bounds (retention-policy.ts): the oldest rows are deleted, one
 * small batch per step, and freed pages go back to the file system.
 */
export class SqliteRetention extends Retention {
  private urlSweepCursor = 0
  private lastIpSweep = 0
  /**
   * Set when pruning for size deleted profiles without lowering the bytes used (the rest is not
   * profiles): pruning for size then waits until the store holds more profiles than at that point,
   * instead of deleting every profile (what scanner traffic once made it do).
   */
  private bytesStalledAtCount: number | undefined

  constructor (
    private readonly writer: ProfileWriter,
    private readonly limits: RetentionLimits,
    private readonly onError: (err: unknown) => void = () => {}
  ) {
    super()
  }

  protected onStepError (err: unknown): void {
    this.onError(err)
  }

  /** One step; returns true when it deleted or reclaimed something (more may be left). */
  step (now = Date.now()): boolean {
    // The statistics' own bound first: a primary-key range probe per span, nothing when none expired;
    // then the stamps of stopped sources (a handful of rows, read whole).
    if (this.writer.deleteExpiredRollups(now, this.limits.statsMaxAgeMs, BATCH) > 0) return true
    if (this.writer.deleteStaleStamps(now, STATISTICS_STAMP_MAX_AGE_MS) > 0) return true
    this.writer.recount()
    const through = this.pruneTarget(now)
    if (through !== undefined) {
      const before = this.writer.usedBytes()
      this.writer.deleteThrough(through)
      this.writer.compactUrlIndex(COMPACT_PAGES)
      this.reclaim()
      // A merge of the URL index may grow the file for a step before it frees the old segments:
      // only several steps in a row without a gain stop pruning for size.
      if (this.prunedForSize) this.stepsWithoutGain = this.writer.usedBytes() >= before ? this.stepsWithoutGain + 1 : 0
      if (this.stepsWithoutGain >= STALL_STEPS) this.bytesStalledAtCount = this.writer.count
      return true
    }
    if (this.reclaim()) return true
    return this.sweepOrphans(now)
  }

  /** Steps until every bound holds and nothing is left to reclaim; returns the steps taken. */
  runUntilWithinBounds (now = Date.now()): number {
    let steps = 0
    while (this.step(now)) steps++
    return steps
  }

  /**
   * Before a batch of `incomingBytes` is written, in its transaction: when it would take the store
   * past the byte target, the oldest profiles whose panels hold as many bytes go first, and the
   * batch reuses their pages, so that the file does not grow for it. A batch can hold 4 MiB of
   * profiles (64 KiB bodies each): written first and pruned after, that overshot an 8 MiB bound by
   * 40% (the soak). At most MAKE_ROOM_WINDOW profiles go per batch.
   */
  makeRoom (incomingBytes: number): void {
    const { writer, limits } = this
    const over = writer.usedBytes() + incomingBytes - bytesTarget(limits)
    if (over <= 0 || writer.count === 0) return
    const through = writer.idFreeing(over, MAKE_ROOM_WINDOW)
    if (through !== undefined) writer.deleteThrough(through)
  }

  /** Enforces the count bound only (cheap): called after each written batch. */
  enforceCount (): void {
    const { writer, limits } = this
    while (countExcess(limits, writer.recount()) > 0) {
      const through = writer.nthOldestId(Math.min(countExcess(limits, writer.count), BATCH))
      if (through === undefined || writer.deleteThrough(through) === 0) return
      writer.compactUrlIndex(COMPACT_PAGES)
    }
  }

  private prunedForSize = false
  private stepsWithoutGain = 0

  /** The newest id to delete through in this step, or undefined when every bound holds. */
  private pruneTarget (now: number): number | undefined {
    this.prunedForSize = false
    const { writer, limits } = this
    const oldest = writer.oldestId()
    if (oldest === undefined) return undefined
    const expiredThrough = firstKeptId(limits, now) - 1
    if (oldest <= expiredThrough) return Math.min(expiredThrough, writer.nthOldestId(BATCH) ?? expiredThrough)
    const excess = countExcess(limits, writer.count)
    if (excess > 0) return writer.nthOldestId(Math.min(excess, BATCH))
    const used = writer.usedBytes()
    const target = bytesTarget(limits)
    if (used <= target) {
      this.bytesStalledAtCount = undefined
      this.stepsWithoutGain = 0
    }
    const stalledAt = this.bytesStalledAtCount
    // Stalled: only what arrived since goes, so the count stays where deleting stopped paying.
    if (used > target && stalledAt !== undefined) {
      return writer.count > stalledAt ? writer.nthOldestId(Math.min(writer.count - stalledAt, BATCH)) : undefined
    }
    if (used > target && writer.count > 0) {
      this.prunedForSize = true
      const bytesPerProfile = used / writer.count
      const excess = Math.ceil((used - target) / bytesPerProfile)
      return writer.nthOldestId(Math.max(1, Math.min(excess, BATCH, writer.count)))
    }
    return undefined
  }

  private reclaim (): boolean {
    const free = this.writer.freePageCount()
    if (free === 0) return false
    this.writer.reclaim(Math.min(free, RECLAIM_PAGES))
    return true
  }

  /** URLs and IPs that no profile uses any more leave the search side tables. */
  private sweepOrphans (now: number): boolean {
    const { deleted, nextAfterId } = this.writer.deleteOrphanUrls(this.urlSweepCursor, BATCH)
    this.urlSweepCursor = nextAfterId
    if (now - this.lastIpSweep >= IP_SWEEP_INTERVAL_MS) {
      this.lastIpSweep = now
      this.writer.deleteOrphanIps()
    }
    return deleted > 0
  }
}
