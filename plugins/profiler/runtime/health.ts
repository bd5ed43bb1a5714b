import type { StoreHealthSnapshot } from '../schemas.js'

export type { StoreHealthSnapshot }

export interface HealthLog {
  error: (message: string) => void
  info: (message: string) => void
}

/**
 * A write the store has not answered for this long makes the store "failing" in the listing: a
 * lock held by another connection (SQLite waits up to its busy timeout, 5 s) or a store that
 * hangs is shown while it lasts, not only once a write has failed.
 */
const STALLED_AFTER_MS = 1000

export interface HealthCounts { dropped: number, queued: number, statisticsDropped: number, writeWaitingSince: number | null }

/**
 * Follows faults of the profile store: one log line when writes start failing, one when they
 * work again (with what was lost meanwhile). Repeated failures in between are not logged again.
 */
export class StoreHealth {
  private failingSince: number | null = null
  private reason: string | null = null
  private droppedAtFault = 0
  private statisticsDroppedAtFault = 0

  /** Since when, and why, the store is over its byte bound with nothing left that retention may delete. */
  private overBoundSince: { at: number, reason: string } | null = null

  constructor (private readonly log: HealthLog, private readonly counts: () => HealthCounts) {}

  /** The writer says the store cannot keep its byte bound (why), or keeps it again (null); logged once each way. */
  overBound (reason: string | null): void {
    if (reason === null) {
      if (this.overBoundSince !== null) this.log.info('profiler: the profile store is within PROFILER_MAX_BYTES again')
      this.overBoundSince = null
      return
    }
    if (this.overBoundSince === null) this.log.error(`profiler: the profile store cannot keep its byte bound: ${reason}`)
    this.overBoundSince = { at: this.overBoundSince?.at ?? Date.now(), reason }
  }

  get failing (): boolean {
    return this.failingSince !== null
  }

  fail (reason: string): void {
    this.reason = reason
    if (this.failingSince !== null) return
    this.failingSince = Date.now()
    const counts = this.counts()
    this.droppedAtFault = counts.dropped
    this.statisticsDroppedAtFault = counts.statisticsDropped
    this.log.error(`profiler: the profile store cannot be written (${reason}); profiles are kept in memory and retried until it can`)
  }

  recover (): void {
    if (this.failingSince === null) return
    const seconds = ((Date.now() - this.failingSince) / 1000).toFixed(1)
    const counts = this.counts()
    const lost = counts.dropped - this.droppedAtFault
    // Statistics-only requests dropped during the fault are not logged one by one either.
    const notCounted = counts.statisticsDropped - this.statisticsDroppedAtFault
    this.failingSince = null
    this.reason = null
    this.log.info(`profiler: the profile store is writable again after ${seconds} s; ${lost} profile(s) could not be stored meanwhile` +
      (notCounted > 0 ? `, and ${notCounted} request(s) not kept as profiles could not be counted in the statistics` : ''))
  }

  snapshot (): StoreHealthSnapshot {
    const { dropped, queued, statisticsDropped, writeWaitingSince } = this.counts()
    const now = Date.now()
    if (this.failingSince === null && writeWaitingSince !== null && now - writeWaitingSince >= STALLED_AFTER_MS) {
      const seconds = ((now - writeWaitingSince) / 1000).toFixed(1)
      return { state: 'failing', since: new Date(writeWaitingSince).toISOString(), reason: `a write has waited ${seconds} s for the store (locked by another connection, or too slow)`, dropped, queued, statisticsDropped }
    }
    const over = this.overBoundSince
    if (this.failingSince === null && over !== null) {
      return { state: 'over-bound', since: new Date(over.at).toISOString(), reason: over.reason, dropped, queued, statisticsDropped }
    }
    return {
      state: this.failingSince === null ? 'ok' : 'failing',
      since: this.failingSince === null ? null : new Date(this.failingSince).toISOString(),
      reason: this.reason,
      dropped,
      queued,
      statisticsDropped
    }
  }
}
