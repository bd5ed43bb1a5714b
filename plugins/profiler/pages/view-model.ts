import { STATUS_CODES } from 'node:http'
import type { ProfileSummary, StoredProfile } from '../profile.js'
import { DEFAULT_LIMIT, MAX_LIMIT, type SearchQuery } from '../query/search-filters.js'
import { panels } from '../panels/index.js'
import type { ViewSettings } from '../panels/panel.js'
import { formatMs, listTime, statusClass } from '../units.js'
import { profileTraceUrl } from '../query/profile-lookup.js'

export function resultRow (summary: ProfileSummary) {
  return { ...summary, statusClass: statusClass(summary.status), timeText: listTime(summary.time), durationText: formatMs(summary.durationMs) }
}

/** The sidebar search form, filled with the current query. */
export function searchForm (query: SearchQuery) {
  const limit = query.limit ?? String(DEFAULT_LIMIT)
  return {
    ip: query.ip ?? '',
    method: (query.method ?? '').toUpperCase(),
    methods: ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'],
    status_code: query.status_code ?? '',
    url: query.url ?? '',
    token: query.token ?? '',
    start: query.start ?? '',
    end: query.end ?? '',
    deployment: query.deployment ?? '',
    trace_id: query.trace_id ?? '',
    limits: [DEFAULT_LIMIT, 50, MAX_LIMIT].map(value => ({ value, selected: String(value) === limit })),
    sorts: [{ value: 'time', label: 'Newest first' }, { value: 'duration', label: 'Slowest first' }]
      .map(sort => ({ ...sort, selected: sort.value === (query.sort?.trim() === 'duration' ? 'duration' : 'time') }))
  }
}

/** The trace a profile belongs to, as its summary shows it: the id, the span it hangs under, a link to the tracing UI when one is set. */
function traceOnPage (profile: StoredProfile, traceUrl: string | null) {
  if (profile.traceId === null) return null
  const trace = (profile.panels.request as { trace?: { parentSpanId: string, source: string } } | null | undefined)?.trace
  return { id: profile.traceId, parentSpanId: trace?.parentSpanId ?? null, source: trace?.source ?? null, link: profileTraceUrl(profile, traceUrl) }
}

export function profileSummary (profile: StoredProfile, traceUrl: string | null = null) {
  return {
    trace: traceOnPage(profile, traceUrl),
    ...resultRow(profile),
    statusText: STATUS_CODES[profile.status] ?? '',
    isError: profile.status > 399,
    route: profile.route,
    deployment: profile.deployment,
    duration: formatMs(profile.durationMs),
    oneQuery: profile.queries === 1,
    queryTime: formatMs(profile.queryMs)
  }
}

export function panelMenu (profile: StoredProfile, active: string) {
  return panels.map(panel => ({
    name: panel.name,
    label: panel.label,
    active: panel.name === active,
    empty: profile.panels[panel.name] === null || profile.panels[panel.name] === undefined
  }))
}

/** The panel shown: its label, partial, data and view (what the partial shows besides the data). */
export function panelOnPage (profile: StoredProfile, name: string, settings: ViewSettings) {
  const panel = panels.find(candidate => candidate.name === name)
  const data = profile.panels[name]
  // choosePanel (query/profile-lookup.ts) answered 404 for a name the index does not hold.
  if (panel === undefined) throw new Error(`No panel "${name}"`)
  return { name, label: panel.label, partial: `profiler/partials/panel-${name}`, data, view: data === null || data === undefined || panel.view === undefined ? null : panel.view(data, settings) }
}
