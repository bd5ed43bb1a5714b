// What retention keeps, the same on both engines: whichever bound is hit first (age, then count,
// then bytes), the oldest profiles go, one short batch per step, in the writer thread. How they
// go is the engine's (SQLite deletes rows and gives pages back; PostgreSQL drops whole time
// partitions where it can): each engine's retention extends Retention with its step.
import { BackgroundLoop } from '../background-loop.js'
import { ID_SLOTS_PER_MS } from '../profile.js'
import { HOUR_MS, MINUTE_MS } from '../stats/rollup.js'
import type { RetentionLimits } from './contract.js'

/** Profiles deleted per step: one short transaction, a few milliseconds at most. */
export const PRUNE_BATCH = 500
/** Pruning for size stops this far under the byte bound, so that the store stays within it. */
const BYTES_TARGET = 0.9
/** The share of PROFILER_MAX_BYTES the route statistics may take (their tables and indexes); the profiles have the rest. */
export const STATISTICS_SHARE = 0.25

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
function bytesTarget (limits: RetentionLimits): number {
  return limits.maxBytes * BYTES_TARGET
}

/**
 * The statistics' share of the bound (STATISTICS_SHARE): over it, the statistics are coarsened
 * (statisticsCoarsening), never the profiles pruned for them. Coarsening starts over 90% of the
 * share and goes down to 80%, so that it runs in a few long strides, not after every batch.
 */
export function statisticsShare (limits: RetentionLimits): { bound: number, start: number, target: number } {
  const bound = limits.maxBytes * STATISTICS_SHARE
  return { bound, start: bound * 0.9, target: bound * 0.8 }
}

/**
 * The bytes pruning for size brings the profiles (and everything that goes with them: URLs, IPs,
 * the search index, the per-process panels) down to: the store's target less what the statistics
 * hold, counted up to their share only. So the statistics never make a profile go: past their
 * share they are coarsened instead, and until that is done the store is over its bound, and says so.
 */
export function profilesBytesTarget (limits: RetentionLimits, statisticsBytes: number): number {
  return bytesTarget(limits) - Math.min(statisticsBytes, statisticsShare(limits).bound)
}

/**
 * Pruning for size never takes the profiles below half of those that fit their bytes target when
 * it began (at the bytes a profile took then): whatever else holds the bytes, the store keeps that
 * many, and says it is over its bound (StoreBound).
 */
export function profilesFloor (count: number, profilesBytes: number, target: number): number {
  if (count === 0 || profilesBytes <= 0) return 0
  return Math.ceil(Math.min(count, count * target / profilesBytes) / 2)
}

/**
 * A floor (a profile count, fixed when pruning began) bounded in bytes as well, at the bytes the
 * newest profiles take now (`profileBytes`, their panels on average): the floor's profiles hold at
 * most half of the profiles' bytes target. Fixed as a count alone, a floor set while requests were
 * small held 499 profiles of 60 KB at an 8 MiB bound (a 31 MB file) once larger bodies came.
 */
export function floorWithinBytes (floor: number, target: number, profileBytes: number): number {
  if (profileBytes <= 0) return floor
  return Math.min(floor, Math.floor(target / 2 / profileBytes))
}

/** Rollup rows coarsening deletes per step at most (small rows: a step of these frees about what 500 profiles' rows do). */
const STATISTICS_BATCH = 2_000

/** The rollup rows a coarsening step deletes: those that hold `excessBytes` at `rowBytes` each (whole periods go: a few more), a batch at most. */
export function rowsOver (excessBytes: number, rowBytes: number): number {
  return Math.max(1, Math.min(STATISTICS_BATCH, Math.ceil(excessBytes / Math.max(1, rowBytes))))
}

/** The tables of the route statistics (what their share of the bound counts). */
export const STATISTICS_TABLES = ['profile_route_stats', 'profile_statistics_stamps', 'profile_statistics_coarsened', 'profile_deployments', 'profile_statistics_missing'] as const

/**
 * What coarsening deletes at `nowMs`, in this order, each the oldest whole periods first: minute
 * rows, down to the current minute (their hours' rows hold the same requests: a window that would
 * start with minutes given up starts at its whole hour, profile_statistics_coarsened); then hour
 * rows, down to the current hour, which is never deleted (its counts go on). So a store too small
 * for its routes' statistics keeps hour rows, as many days of them as fit.
 */
export function statisticsCoarsening (nowMs: number): Array<{ spanMs: number, beforeMs: number }> {
  return [
    { spanMs: MINUTE_MS, beforeMs: Math.floor(nowMs / MINUTE_MS) * MINUTE_MS },
    { spanMs: HOUR_MS, beforeMs: Math.floor(nowMs / HOUR_MS) * HOUR_MS }
  ]
}

/** Why the store is over its bound, or null when it holds (the listing's `store.state`: 'over-bound'). */
export type StoreBound = string | null

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
