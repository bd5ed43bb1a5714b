import { isDeepStrictEqual } from 'node:util'
import { panelData } from '../panels/panel.js'
import { performancePanel } from '../panels/performance.js'
import { requestPanel } from '../panels/request/index.js'
import type { StoredProfile } from '../profile.js'
import { roundMs } from '../units.js'

/** Headers that differ on every request by design: leaving them out keeps the differences that matter. */
export const IGNORED_HEADERS = ['date', 'x-debug-token', 'x-debug-token-link', 'server-timing']
const PHASES = ['totalMs', 'beforeHandlerMs', 'handlerMs', 'sendingMs'] as const

type Headers = Record<string, unknown>

/** Each header whose value differs, or that only one side has (null on the other). */
function headerDifferences (a: Headers = {}, b: Headers = {}): Record<string, { a: unknown, b: unknown }> {
  const differences: Record<string, { a: unknown, b: unknown }> = {}
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (IGNORED_HEADERS.includes(name) || isDeepStrictEqual(a[name], b[name])) continue
    differences[name] = { a: a[name] ?? null, b: b[name] ?? null }
  }
  return differences
}

function bodyDifference (a: unknown, b: unknown): { same: true } | { same: false, a: unknown, b: unknown } {
  return isDeepStrictEqual(a ?? null, b ?? null) ? { same: true } : { same: false, a: a ?? null, b: b ?? null }
}

/**
 * Two profiles side by side: which request each was, the status, the time of each phase (and b - a),
 * the headers that differ (request and response), and the bodies when they differ.
 */
export function compareProfiles (a: StoredProfile, b: StoredProfile) {
  const summary = ({ token, method, url, status, time, durationMs, route }: StoredProfile) => ({ token, method, url, status, time, durationMs, route })
  const performanceA = panelData(a, performancePanel)
  const performanceB = panelData(b, performancePanel)
  const durations: Record<string, { a: number | null, b: number | null, deltaMs: number | null }> = {}
  for (const phase of PHASES) {
    const valueA = performanceA?.[phase] ?? null
    const valueB = performanceB?.[phase] ?? null
    durations[phase] = { a: valueA, b: valueB, deltaMs: valueA === null || valueB === null ? null : roundMs(valueB - valueA) }
  }
  const requestA = panelData(a, requestPanel)
  const requestB = panelData(b, requestPanel)
  return {
    a: summary(a),
    b: summary(b),
    status: { a: a.status, b: b.status, same: a.status === b.status },
    durations,
    // The statements on the advisors' database: how many, and their time (b - a).
    queries: { a: a.queries, b: b.queries, delta: b.queries - a.queries },
    queryMs: { a: a.queryMs, b: b.queryMs, deltaMs: roundMs(b.queryMs - a.queryMs) },
    requestHeaders: headerDifferences(requestA?.requestHeaders, requestB?.requestHeaders),
    responseHeaders: headerDifferences(requestA?.response.headers, requestB?.response.headers),
    requestBody: bodyDifference(requestA?.body, requestB?.body),
    responseBody: bodyDifference(requestA?.response.body, requestB?.response.body),
    // Lines the request logged at warn, and at error or above (the logs panel), each side and b - a.
    logs: {
      warnings: { a: a.warnings, b: b.warnings, delta: b.warnings - a.warnings },
      errors: { a: a.errors, b: b.errors, delta: b.errors - a.errors }
    },
    ignoredHeaders: IGNORED_HEADERS
  }
}
