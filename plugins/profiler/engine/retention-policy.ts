// What retention keeps, the same on both engines: whichever bound is hit first (age, then count,
// then bytes), the oldest profiles go, one short batch per step, in the writer thread. How they
// go is the engine's (SQLite deletes rows and gives pages back; PostgreSQL drops whole time
// partitions where it can): each engine's retention extends Retention with its step.
import { BackgroundLoop } from '../../../lib/background-loop.js'
import { ID_SLOTS_PER_MS } from '../profile.js'
import type { RetentionLimits } from './contract.js'

/** Profiles deleted per step: one short transaction, a few milliseconds at most. */
export const PRUNE_BATCH = 500
/** Pruning for size stops this far under the byte bound, so that the store stays within it. */
const BYTES_TARGET = 0.9

/**
 * Statistics stamps (contract.ts: StatisticsStamp) older than this are deleted by retention. A live
 * source deletes its own below its lowest outstanding batch with each write, so only a source that
 * stopped (its process ended) leaves any: one or two rows each. A day, because a stamp must outlive
 * every retry of its batch (retried every second while the store fails, and a store
 * failing that long has its retention stopped too), and because the statistics' bound can be short
 * (a double count after a day would be a retry no process makes any more).
 */
export const STATISTICS_STAMP_MAX_AGE_MS = 86_400_000

/** The first profile id that is young enough to stay at `now` (ids follow the request's start). */
export function firstKeptId (limits: RetentionLimits, now: number): number {
  return Math.floor(now - limits.maxAgeMs) * ID_SLOTS_PER_MS
}

/** Profiles over the count bound (0 within it). */
export function countExcess (limits: RetentionLimits, count: number): number {
  return Math.max(0, count - limits.maxProfiles)
}

/** The bytes pruning for size brings the store down to. */
export function bytesTarget (limits: RetentionLimits): number {
  return limits.maxBytes * BYTES_TARGET
}

/** A store's retention: its step, run in the background right away while there is work, else every interval. */
export abstract class Retention {
  private readonly loop = new BackgroundLoop(async () => await this.step(), err => { this.onStepError(err) })

  /** One step; true when it removed something (more may be left). */
  abstract step (now?: number): boolean | Promise<boolean>

  /** A background step failed (the loop goes on). */
  protected abstract onStepError (err: unknown): void

  start (intervalMs: number): void {
    this.loop.start(intervalMs)
  }

  /** After a written batch: the next step runs now, so that a burst is pruned as it arrives, not a second later. */
  wake (): void {
    this.loop.wake()
  }

  stop (): void {
    this.loop.stop()
  }
}
