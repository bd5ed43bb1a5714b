// A stored profile's row as both engines read it (the same columns), and the profile it becomes.
import { ID_SLOTS_PER_MS, type ProfileSummary, type StoredProfile } from '../profile.js'
import { fromStoredPanels, parseStoredPanels } from '../panels/stored-panels.js'
import { ROW_COUNT_COLUMNS, summaryCounts, type RowCountColumns } from '../row-counts.js'

/** A listing's row: the time is read from the id (start ms * 1024 + a counter). */
export interface SummaryRow extends RowCountColumns { id: number, token: string, ip: string, method: string, url: string, status: number, duration_ms: number, deployment: string, trace_id: string | null }
/** A whole profile's row: the summary, its place, and its panels as stored (JSON), the per-process ones apart (null: none). */
export interface ProfileRow extends SummaryRow { parent_token: string | null, type: string, route: string | null, panels: string, process_panels: string | null }

/** The columns of a SummaryRow, on `profiles p`. */
export const SUMMARY_COLUMNS = 'p.id, p.token, p.ip, p.method, p.url, p.status_code AS status, p.duration_ms, p.deployment, ' +
  `${ROW_COUNT_COLUMNS.map(column => `p.${column}`).join(', ')}, p.trace_id`
/** The columns of a ProfileRow, on `profiles p` joined with its panels `d` (profile_data, or SQLite's profile_panels view) and PROCESS_JOIN. */
export const PROFILE_COLUMNS = `${SUMMARY_COLUMNS}, p.parent_token, p.type, p.route, d.panels, pp.panels AS process_panels`
/** The per-process panels the profile's data names (stored once: migrations sqlite/007, postgres/008), as `pp`. */
export const PROCESS_JOIN = 'LEFT JOIN profile_processes pp ON pp.key = d.process_key'

export function toSummary (row: SummaryRow): ProfileSummary {
  const startMs = Math.floor(row.id / ID_SLOTS_PER_MS)
  const summary = { token: row.token, ip: row.ip, method: row.method, url: row.url, status: row.status, time: new Date(startMs).toISOString(), durationMs: row.duration_ms, deployment: row.deployment }
  return { ...summary, ...summaryCounts(row), traceId: row.trace_id }
}

/** The profile's own panels and the per-process ones it names, as one object (the profile's own first). */
function storedPanels (row: ProfileRow): Record<string, unknown> {
  const own = parseStoredPanels(row.panels)
  if (row.process_panels === null) return own
  const perProcess = JSON.parse(row.process_panels) as Record<string, unknown>
  return { ...own, ...perProcess }
}

export function toStoredProfile (row: ProfileRow | undefined): StoredProfile | undefined {
  if (row === undefined) return undefined
  const profile = toSummary(row)
  return {
    ...profile,
    parentToken: row.parent_token,
    type: row.type,
    route: row.route,
    panels: fromStoredPanels(storedPanels(row), { ...profile, route: row.route })
  }
}
