// The shapes the profiler stores and shows.
import type { RequestCapture } from './collect/capture.js'

/** One recorded request as it goes into the store. */
export interface ProfileRecord {
  id: number
  token: string
  parentToken: string | null
  type: 'request'
  ip: string
  method: string
  url: string
  statusCode: number
  durationMs: number
  route: string | null
  /** Statements run on the advisors' database, and their total time in ms; absent: none. */
  queryCount?: number
  queryMs?: number
  /** Panel name -> panel data, already JSON-encoded (the per-process panels apart: `process`). */
  panels: string
  /** The per-process panels of the process that recorded it, stored once per store and referenced by key; absent: none. */
  process?: ProcessPanels
  /** Log lines at warn, and at error or above, the request wrote (0 when absent). */
  logWarnings?: number
  logErrors?: number
  /** The W3C trace id of the trace the request belongs to (the request panel's `trace`); absent: none. */
  traceId?: string
}

/**
 * The per-process panels (panels/panel.ts, ProcessPanel) of one process, JSON-encoded as stored,
 * and their key: a hash of that JSON, so that a process with the same content shares the row and
 * a changed configuration gets its own. Every profile of the process holds the same object.
 */
export interface ProcessPanels {
  key: string
  panels: string
}

/** What the queue holds: a request thread's capture (shaped in the writer thread), or a profile shaped already. */
export type QueuedProfile = RequestCapture | ProfileRecord

/** What the store answers: types of the JSON schemas in schemas.ts (type-only, so the writer thread does not load them). */
export type { ProfileSummary, StoredProfile } from './schemas.js'

/** Filters of the search; every one optional. Time bounds are inclusive epoch milliseconds. */
export interface SearchFilters {
  /** Exact name of the deployment that recorded the profile. */
  deployment?: string
  ip?: string
  method?: string
  statusCode?: number
  url?: string
  urlNegated?: boolean
  /** The matched route pattern, exactly; null: requests no route matched. */
  route?: string | null
  start?: number
  end?: number
  /** At least this many statements on the advisors' database. */
  minQueries?: number
  /** At least this much time (ms) in them, all together. */
  minQueryMs?: number
  /** Requests that logged at least one line at this level or above (the logs panel's counts). */
  minLevel?: 'warn' | 'error'
  /** The profiles of one trace (32 lowercase hex digits). */
  traceId?: string
  /** The slowest first (the newest first among equals); absent: the newest first. */
  sort?: 'duration'
  type: string
  limit: number
}

/** Ids follow the request start: start_ms * 1024 + a counter within the millisecond. */
export const ID_SLOTS_PER_MS = 1024

export function idRangeOf (startMs: number | undefined, endMs: number | undefined): { low: number, high: number } {
  return {
    low: startMs === undefined ? 0 : startMs * ID_SLOTS_PER_MS,
    high: endMs === undefined ? Number.MAX_SAFE_INTEGER : (endMs + 1) * ID_SLOTS_PER_MS - 1
  }
}
