import type { SqliteProfileWriter } from './profile-writer.js'
import type { RetentionLimits } from '../contract.js'
import { countExcess, firstKeptId, floorWithinBytes, PRUNE_BATCH as BATCH, profilesBytesTarget, profilesFloor, Retention, rowsOver, STATISTICS_STAMP_MAX_AGE_MS, statisticsShare, type StoreBound } from '../retention-policy.js'
import { BoundReporter } from '../store-bound.js'

/** The most profiles makeRoom deletes for one batch. */
const MAKE_ROOM_WINDOW = 4 * BATCH
/** Free pages returned to the file system per step. */
const RECLAIM_PAGES = 1024
/** Pages of URL-index merging per step that deleted profiles (an incremental 'optimize'). */
const COMPACT_PAGES = 256
/**
 * How often the statistics' bytes are measured while they are not being coarsened: dbstat reads
 * each of their pages (measured: 70 ms for 28 MB, 7,000 pages), and they grow by a row or two per
 * key and minute, so a figure 10 s old is as good.
 */
const STATISTICS_MEASURE_MS = 10_000
/** Or sooner, once the writer has inserted this many rollup rows since (updates of a row add none). */
const STATISTICS_MEASURE_ROWS = 1_000
/** Coarsening steps at most between two measurements of the statistics (coarsen). */
const COARSEN_MEASURE_STEPS = 16

/**
 * Keeps the SQLite store within its bounds (retention-policy.ts): the oldest rows are deleted, one
 * small batch per step, and freed pages go back to the file system. The statistics' bytes are
 * measured apart from the rest (their b-trees' pages): over their share they are coarsened, and the
 * profiles are pruned for size against what is left of the bound, never for the statistics.
 */
export class SqliteRetention extends Retention {
  /**
   * The orphan sweep's pass over the URLs and the IPs (a window of each per step) while one goes
   * on: where each goes on from, null once it reached the end.
   */
  private sweep: { urlsAfter: number | null, ipsFrom: string | null } = { urlsAfter: null, ipsFrom: null }
  /** The statistics' bytes and rows as last measured (while coarsening, less what each step since deleted: estimatedSteps), when (performance.now()), and whether they are being coarsened. */
  private readonly statistics = { bytes: 0, rows: 0, measuredAt: 0, rowsWrittenAt: 0, coarsening: false, estimatedSteps: 0 }
  /** While pruning for size: the profiles it never goes below (profilesFloor, set when it began; bounded in bytes at each step: floor()). */
  private sizeFloor: number | undefined
  private readonly bound: BoundReporter

  constructor (
    private readonly writer: SqliteProfileWriter,
    private readonly limits: RetentionLimits,
    private readonly onError: (err: unknown) => void = () => {},
    onBound: (bound: StoreBound) => void = () => {}
  ) {
    super()
    this.bound = new BoundReporter(onBound)
    this.measureStatistics()
  }

  protected onStepError (err: unknown): void {
    this.onError(err)
  }

  /** One step; returns true when it deleted or reclaimed something (more may be left). */
  step (now = Date.now()): boolean {
    // The statistics' own bounds first: their age (a primary-key range probe per span, nothing when
    // none expired), the stamps of stopped sources (a handful of rows), then their share of the bytes.
    if (this.writer.deleteExpiredRollups(now, this.limits.statsMaxAgeMs, BATCH) > 0) return true
    if (this.writer.deleteStaleStamps(now, STATISTICS_STAMP_MAX_AGE_MS) > 0) return true
    if (this.coarsen(now)) return true
    this.writer.recount()
    // The file's size, read once for the step (nothing below writes before it returns, or it reads again).
    const { usedBytes, freePages } = this.writer.pages()
    const through = this.pruneTarget(now, usedBytes)
    if (through !== undefined) {
      this.writer.deleteThrough(through)
      this.writer.compactUrlIndex(COMPACT_PAGES)
      this.reclaim()
      return true
    }
    if (this.reclaim(freePages)) return true
    this.checkBound(usedBytes)
    return this.sweepOrphans()
  }

  /** Steps until every bound holds and nothing is left to reclaim; returns the steps taken. */
  runUntilWithinBounds (now = Date.now()): number {
    this.measureStatistics()
    let steps = 0
    while (this.step(now)) steps++
    return steps
  }

  /**
   * Before a batch of `incomingBytes` is written, in its transaction: when it would take the
   * profiles past their bytes target, the oldest profiles whose panels hold as many bytes go first,
   * and the batch reuses their pages, so that the file does not grow for it. A batch can hold 4 MiB
   * of profiles (64 KiB bodies each): written first and pruned after, that overshot an 8 MiB bound
   * by 40% (the soak). At most MAKE_ROOM_WINDOW profiles go per batch, never below the floor.
   */
  makeRoom (incomingBytes: number): void {
    const { writer, limits } = this
    const statistics = this.statistics.bytes
    const profilesBytes = writer.usedBytes() - statistics
    const target = profilesBytesTarget(limits, statistics)
    const over = profilesBytes + incomingBytes - target
    if (over <= 0 || writer.count === 0) return
    const floor = this.floor(this.sizeFloor ?? profilesFloor(writer.count, profilesBytes, target), target)
    const window = Math.min(MAKE_ROOM_WINDOW, writer.count - floor)
    if (window <= 0) return
    const through = writer.idFreeing(over, window)
    if (through !== undefined) writer.deleteThrough(through)
  }

  /** A floor count, never more profiles than half of `target` holds at the newest profiles' size now (floorWithinBytes). */
  private floor (count: number, target: number): number {
    return floorWithinBytes(count, target, this.writer.newestPanelBytes(BATCH))
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

  private measureStatistics (): number {
    const { bytes, rows } = this.writer.statisticsSize()
    Object.assign(this.statistics, { bytes, rows, measuredAt: performance.now(), rowsWrittenAt: this.writer.rollupRowsInserted, estimatedSteps: 0 })
    return bytes
  }

  /**
   * Over 90% of their share, the statistics lose their oldest whole periods (minute rows first),
   * a batch per step, down to 80%. While that goes on, each step's rows are taken off the last
   * measurement at the bytes a row took then, and the b-trees are measured again only once that
   * reaches the target: measuring walks every page of the statistics (dbstat), and doing it at each
   * of a long coarsening's steps was most of its time (30 days of 300 routes: about 117 steps of
   * 2,000 rows). The oldest periods lead the rows' key (span, start, ...): their leaf pages empty
   * whole, so the pages fall about as the estimate does; measured at least every
   * COARSEN_MEASURE_STEPS steps all the same, so that an estimate that lags stops it soon after.
   * Meanwhile the profiles' target reads the statistics as no larger than they are: no profile is
   * pruned for bytes the statistics hold.
   */
  private coarsen (now: number): boolean {
    const { statistics } = this
    const share = statisticsShare(this.limits)
    const due = (statistics.coarsening && (statistics.bytes <= share.target || statistics.estimatedSteps >= COARSEN_MEASURE_STEPS)) ||
      performance.now() - statistics.measuredAt >= STATISTICS_MEASURE_MS ||
      this.writer.rollupRowsInserted - statistics.rowsWrittenAt >= STATISTICS_MEASURE_ROWS
    const bytes = due ? this.measureStatistics() : statistics.bytes
    if (bytes <= (statistics.coarsening ? share.target : share.start)) {
      statistics.coarsening = false
      return false
    }
    const rowBytes = bytes / Math.max(1, statistics.rows)
    const deleted = this.writer.coarsenStatistics(now, rowsOver(bytes - share.target, rowBytes))
    statistics.coarsening = deleted > 0
    // Nothing left that may go: the statistics stay over their share (checkBound says so when the store is over its bound).
    if (!statistics.coarsening) return false
    statistics.bytes = Math.max(0, bytes - deleted * rowBytes)
    statistics.rows = Math.max(0, statistics.rows - deleted)
    statistics.estimatedSteps++
    this.reclaim()
    return true
  }

  /** The newest id to delete through in this step, or undefined when every bound holds (or pruning for size is at its floor). */
  private pruneTarget (now: number, usedBytes: number): number | undefined {
    const { writer, limits } = this
    const oldest = writer.oldestId()
    if (oldest === undefined) return undefined
    const expiredThrough = firstKeptId(limits, now) - 1
    if (oldest <= expiredThrough) return Math.min(expiredThrough, writer.nthOldestId(BATCH) ?? expiredThrough)
    const excess = countExcess(limits, writer.count)
    if (excess > 0) return writer.nthOldestId(Math.min(excess, BATCH))
    const statistics = this.statistics.bytes
    const profilesBytes = usedBytes - statistics
    const target = profilesBytesTarget(limits, statistics)
    if (profilesBytes <= target || writer.count === 0) {
      this.sizeFloor = undefined
      return undefined
    }
    this.sizeFloor ??= profilesFloor(writer.count, profilesBytes, target)
    const room = writer.count - this.floor(this.sizeFloor, target)
    if (room <= 0) return undefined
    const over = Math.ceil((profilesBytes - target) / (profilesBytes / writer.count))
    return writer.nthOldestId(Math.max(1, Math.min(over, BATCH, room)))
  }

  /** Tells whether the store is over its bound with nothing left that retention may delete, and why (BoundReporter: when that changes, or its bytes moved). */
  private checkBound (used: number): void {
    this.bound.check({ used, statistics: this.statistics.bytes, profiles: this.writer.count, limits: this.limits })
  }

  private reclaim (free = this.writer.freePageCount()): boolean {
    if (free === 0) return false
    this.writer.reclaim(Math.min(free, RECLAIM_PAGES))
    return true
  }

  /**
   * URLs and IPs that no profile uses any more leave the search side tables: a pass over both, a
   * window of each per step, only while the writer says some may be left (SqliteProfileWriter.mayHoldOrphans:
   * deleted profiles take theirs along, so a store at its count bound, pruning with every batch,
   * sweeps nothing). A hint while a pass goes on starts another once it ends.
   */
  private sweepOrphans (): boolean {
    const { sweep, writer } = this
    if (sweep.urlsAfter === null && sweep.ipsFrom === null) {
      if (!writer.mayHoldOrphans) return false
      writer.mayHoldOrphans = false
      Object.assign(sweep, { urlsAfter: 0, ipsFrom: '' })
    }
    let deleted = 0
    if (sweep.urlsAfter !== null) {
      const urls = writer.deleteOrphanUrls(sweep.urlsAfter, BATCH)
      sweep.urlsAfter = urls.nextAfterId === 0 ? null : urls.nextAfterId
      deleted += urls.deleted
    }
    if (sweep.ipsFrom !== null) {
      const ips = writer.deleteOrphanIps(sweep.ipsFrom, BATCH)
      sweep.ipsFrom = ips.nextFrom
      deleted += ips.deleted
    }
    return deleted > 0
  }
}
