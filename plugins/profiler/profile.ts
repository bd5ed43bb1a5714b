// The shapes the profiler stores and shows.
import type { RowCounts } from './row-counts.js'

/** One recorded request as it goes into the store; its row's counts (row-counts.ts) 0 when absent. */
export interface ProfileRecord extends Partial<RowCounts> {
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
  /** Panel name -> panel data, already JSON-encoded (the per-process panels apart: `process`). */
  panels: string
  /** The per-process panels of the process that recorded it, stored once per store and referenced by key; absent: none. */
  process?: ProcessPanels
  /** The W3C trace id of the trace the request belongs to (the request panel's `trace`); absent: none. */
  traceId?: string
}

/**
 * The per-process panels (panels/panel.ts, ProcessPanel) of one process, JSON-encoded as stored,
 * and their key: a hash of that JSON, so that a process with the same content shares the row and
 * a changed configuration gets its own; with the hook sites the process's timelines name (a site
 * met later: a new row, writer/process-panels.ts).
 */
export interface ProcessPanels {
  key: string
  panels: string
}

/** What the store answers: types of the JSON schemas in schemas.ts (type-only, so the writer thread does not load them). */
export type { ProfileSummary, StoredProfile } from './schemas.js'

/** Filters of the search: declared with each filter (search-filter-declarations.ts). */
export type { SearchFilters } from './search-filter-declarations.js'

/** Ids follow the request start: start_ms * 1024 + a counter within the millisecond. */
export const ID_SLOTS_PER_MS = 1024

export function idRangeOf (startMs: number | undefined, endMs: number | undefined): { low: number, high: number } {
  return {
    low: startMs === undefined ? 0 : startMs * ID_SLOTS_PER_MS,
    high: endMs === undefined ? Number.MAX_SAFE_INTEGER : (endMs + 1) * ID_SLOTS_PER_MS - 1
  }
}
