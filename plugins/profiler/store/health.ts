import type { StoreHealthSnapshot } from '../schemas.js'

export type { StoreHealthSnapshot }

export interface HealthLog {
  error: (message: string) => void
  info: (message: string) => void
}

/**
 * Follows faults of the profile store: one log line when writes start failing, one when they
 * work again (with what was lost meanwhile). Repeated failures in between are not logged again.
 */
export class StoreHealth {
  private failingSince: number | null = null
  private reason: string | null = null
  private droppedAtFault = 0

  constructor (private readonly log: HealthLog, private readonly counts: () => { dropped: number, queued: number }) {}

  get failing (): boolean {
    return this.failingSince !== null
  }

  fail (reason: string): void {
    this.reason = reason
    if (this.failingSince !== null) return
    this.failingSince = Date.now()
    this.droppedAtFault = this.counts().dropped
    this.log.error(`profiler: the profile store cannot be written (${reason}); profiles are kept in memory and retried until it can`)
  }

  recover (): void {
    if (this.failingSince === null) return
    const seconds = ((Date.now() - this.failingSince) / 1000).toFixed(1)
    const lost = this.counts().dropped - this.droppedAtFault
    this.failingSince = null
    this.reason = null
    this.log.info(`profiler: the profile store is writable again after ${seconds} s; ${lost} profile(s) could not be stored meanwhile`)
  }

  snapshot (): StoreHealthSnapshot {
    const { dropped, queued } = this.counts()
    return {
      state: this.failingSince === null ? 'ok' : 'failing',
      since: this.failingSince === null ? null : new Date(this.failingSince).toISOString(),
      reason: this.reason,
      dropped,
      queued
    }
  }
}
