import { STATUS_CODES } from 'node:http'
import type { Collector } from '../collect/collectors/collector.js'
import type { ProfileSummary, StoredProfile } from '../profile.js'
import type { SearchQuery } from './search-filters.js'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (n: number): string => String(n).padStart(2, '0')

/** `d-M-Y H:i:s` as Symfony's listing shows it (UTC), e.g. 22-Nov-2026 02:28:00. */
export function listTime (iso: string): string {
  const d = new Date(iso)
  return `${two(d.getUTCDate())}-${MONTHS[d.getUTCMonth()] ?? ''}-${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
}

/** Symfony's colours: above 399 an error, above 299 a warning, else success. */
export function statusClass (status: number): string {
  return status > 399 ? 'status-error' : status > 299 ? 'status-warning' : 'status-success'
}

export function resultRow (summary: ProfileSummary) {
  return { ...summary, statusClass: statusClass(summary.status), timeText: listTime(summary.time) }
}

/** The sidebar search form, filled with the current query. */
export function searchForm (query: SearchQuery) {
  const limit = query.limit ?? '10'
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
    limits: [10, 50, 100].map(value => ({ value, selected: String(value) === limit }))
  }
}

export function profileSummary (profile: StoredProfile) {
  return {
    ...resultRow(profile),
    statusText: STATUS_CODES[profile.status] ?? '',
    isError: profile.status > 399,
    route: profile.route,
    deployment: profile.deployment
  }
}

export function panelMenu (profile: StoredProfile, collectors: Collector[], active: string) {
  return collectors.map(collector => ({
    name: collector.name,
    label: collector.label,
    active: collector.name === active,
    empty: profile.panels[collector.name] === null || profile.panels[collector.name] === undefined
  }))
}
