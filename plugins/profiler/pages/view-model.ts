import { STATUS_CODES } from 'node:http'
import type { Collector } from '../collect/collectors/collector.js'
import type { ProfileSummary, StoredProfile } from '../profile.js'
import { DEFAULT_LIMIT, MAX_LIMIT, type SearchQuery } from '../query/search-filters.js'
import { formatBytes, formatMs, listTime, statusClass } from '../query/units.js'
import { curlCommand, type CurlSource } from '../export/curl.js'

export function resultRow (summary: ProfileSummary) {
  return { ...summary, statusClass: statusClass(summary.status), timeText: listTime(summary.time) }
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
    limits: [DEFAULT_LIMIT, 50, MAX_LIMIT].map(value => ({ value, selected: String(value) === limit }))
  }
}

export function profileSummary (profile: StoredProfile) {
  return {
    ...resultRow(profile),
    statusText: STATUS_CODES[profile.status] ?? '',
    isError: profile.status > 399,
    route: profile.route,
    deployment: profile.deployment,
    duration: formatMs(profile.durationMs)
  }
}

interface PerformancePanel { totalMs: number, beforeHandlerMs: number, handlerMs: number | null, sendingMs: number, heapUsedBytes: number }

/** The timeline's width in SVG user units; each phase gets its share of it. */
const TIMELINE_WIDTH = 1000

/**
 * The performance panel in human units, and its phases laid end to end with widths proportional
 * to their durations (SVG attributes: the CSP allows no inline style).
 */
function performanceView (data: PerformancePanel) {
  const phases = [
    { name: 'before', label: 'Before the handler', ms: data.beforeHandlerMs },
    ...(data.handlerMs === null ? [] : [{ name: 'handler', label: 'In the handler', ms: data.handlerMs }]),
    { name: 'sending', label: 'Sending', ms: data.sendingMs }
  ]
  const sum = phases.reduce((total, phase) => total + Math.max(0, phase.ms), 0)
  let x = 0
  return {
    total: formatMs(data.totalMs),
    beforeHandler: formatMs(data.beforeHandlerMs),
    handler: data.handlerMs === null ? null : formatMs(data.handlerMs),
    sending: formatMs(data.sendingMs),
    heapUsed: formatBytes(data.heapUsedBytes),
    phases: phases.map(phase => {
      const width = sum === 0 ? 0 : Math.max(0, phase.ms) / sum * TIMELINE_WIDTH
      const laid = { name: phase.name, label: phase.label, time: formatMs(phase.ms), x: round2(x), width: round2(width) }
      x += width
      return laid
    })
  }
}

const round2 = (n: number): number => Math.round(n * 100) / 100

export function panelMenu (profile: StoredProfile, collectors: Collector[], active: string) {
  return collectors.map(collector => ({
    name: collector.name,
    label: collector.label,
    active: collector.name === active,
    empty: profile.panels[collector.name] === null || profile.panels[collector.name] === undefined
  }))
}

/** How a redacted value reads in stored text, and inside a stored URL. */
const REDACTED_TEXT = /\[redacted\]|%5Bredacted%5D/g

/** Text cut into plain and redacted pieces, so that the page can mark each redacted value. */
function markRedacted (text: string): Array<{ text: string, redacted: boolean }> {
  const parts: Array<{ text: string, redacted: boolean }> = []
  let last = 0
  for (const match of text.matchAll(REDACTED_TEXT)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), redacted: false })
    parts.push({ text: match[0], redacted: true })
    last = match.index + match[0].length
  }
  if (last < text.length) parts.push({ text: text.slice(last), redacted: false })
  return parts
}

/**
 * Characters an HTML page may not hold as text (controls but tab and line ends, noncharacters),
 * which a body sent as is may: shown as \uXXXX.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]/g

function printable (text: string): string {
  return text.replace(UNPRINTABLE, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** The request panel's "copy as cURL" box, and a body that was not parsed as it can be shown. */
function requestView (data: CurlSource) {
  const curl = curlCommand(data)
  const parts = markRedacted(curl.command)
  const raw = data.rawBody
  return {
    curl: { parts, redacted: parts.some(part => part.redacted), truncatedBody: curl.truncatedBody },
    rawBody: raw === undefined ? null : { text: printable(raw.text), size: raw.bytes === null ? 'size unknown' : formatBytes(raw.bytes) }
  }
}

/** What a panel's partial shows besides its raw data (human units, the timeline, the cURL box). */
export function panelView (name: string, data: unknown): unknown {
  if (data === null || data === undefined) return null
  if (name === 'performance') return performanceView(data as PerformancePanel)
  if (name === 'request') return requestView(data as CurlSource)
  return null
}
