// What the alerts keep in the profile store (migrations: SQLite 014, PostgreSQL 015), one interface
// for both engines: each rule's state per route and method, the history of state changes, the
// webhook deliveries (an outbox written in the same transaction as the change that caused them),
// and the lease that lets one instance of a shared store evaluate and deliver at a time.

export type AlertState = 'normal' | 'pending' | 'firing' | 'resolved'

/** One rule's state for one route and method ('*' route rules keep one row per route). */
export interface AlertStateRow {
  rule: string
  route: string
  method: string
  state: AlertState
  /** When the state began, epoch ms. */
  sinceMs: number
  /** The last value read (null: too few requests to tell). */
  value: number | null
  /** Requests in the last window read. */
  count: number
  evaluatedMs: number
  /** When the last notification (firing, repeat, resolved) was queued. */
  notifiedMs: number | null
}

export interface AlertChange { atMs: number, rule: string, route: string, method: string, state: AlertState, value: number | null }

type DeliveryStatus = 'pending' | 'delivered' | 'failed'

export interface NewDelivery { webhook: string, rule: string, state: string, createdMs: number, body: string }

export interface DeliveryRow extends NewDelivery {
  id: number
  status: DeliveryStatus
  attempts: number
  nextMs: number
  doneMs: number | null
  /** What the last failed attempt met (a status code, a timeout, a network error code): never the URL. */
  lastError: string | null
}

/** A delivery attempt's outcome: sent, to be retried at `nextMs`, or given up. */
export type DeliveryOutcome =
  | { status: 'delivered', attempts: number, doneMs: number }
  | { status: 'pending', attempts: number, nextMs: number, lastError: string }
  | { status: 'failed', attempts: number, doneMs: number, lastError: string }

/** An evaluation's result, written in one transaction while the lease is held. */
export interface AlertWrite { states: AlertStateRow[], changes: AlertChange[], deliveries: NewDelivery[] }

export interface AlertHistory { changes: AlertChange[], deliveries: DeliveryRow[] }

/** The alerts' reads, also offered read-only (the command line). */
export interface AlertReader {
  states: () => Promise<AlertStateRow[]>
  /** The newest `limit` state changes and deliveries, newest first. */
  history: (limit: number) => Promise<AlertHistory>
  close: () => Promise<void>
}

export interface AlertStore extends AlertReader {
  /** Takes the lease, or renews it, for `ttlMs`: true when `holder` holds it now. */
  lease: (holder: string, ttlMs: number) => Promise<boolean>
  /** Gives the lease up (a clean stop: another instance takes over at its next evaluation). */
  release: (holder: string) => Promise<void>
  /** Writes an evaluation, unless `holder` lost the lease meanwhile (false: nothing written). */
  apply: (holder: string, write: AlertWrite) => Promise<boolean>
  /** The oldest pending delivery of each webhook (deliveries go out in order, one webhook at a time). */
  nextDeliveries: () => Promise<DeliveryRow[]>
  finishAttempt: (id: number, outcome: DeliveryOutcome) => Promise<void>
  /** Deletes state changes and finished deliveries older than `beforeMs`, and all but the newest `keep` of each. */
  prune: (beforeMs: number, keep: number) => Promise<void>
}

/** The lease's one row. */
export const LEASE_NAME = 'alerts'
