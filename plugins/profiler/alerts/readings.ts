// What a rule reads of a window's route statistics: one value per route and method it watches,
// or none when the window holds too few requests to tell (minRequests, on both sides of a comparison).
import type { AlertRule, Measure } from '../../../lib/alerts/rules-file.js'
import type { RouteStats } from '../stats/rollup.js'

/** One watched route and method, and what the window says of it (value null: no verdict). */
export interface Reading { route: string, method: string, value: number | null, count: number }

/** A comparison whose baseline is at zero reads as this ratio (a share of errors from none, say). */
const RATIO_FROM_ZERO = 1_000_000

function measured (line: RouteStats, measure: Measure): number {
  switch (measure) {
    case 'p50': return line.p50Ms
    case 'p95': return line.p95Ms
    case 'p99': return line.p99Ms
    case '5xx': return line.statusClasses['5xx'] / line.count
    case '4xx': return line.statusClasses['4xx'] / line.count
    case 'count': return line.count
  }
}

const keyOf = (route: string, method: string): string => `${method} ${route}`

/** The lines a rule watches: matched routes only, its route (or each) and its method (or each). */
function watched (rule: AlertRule, lines: RouteStats[]): Map<string, RouteStats> {
  const out = new Map<string, RouteStats>()
  for (const line of lines) {
    if (line.route === null || line.method === null) continue
    if (rule.route !== '*' && line.route !== rule.route) continue
    if (rule.method !== '*' && line.method !== rule.method) continue
    out.set(keyOf(line.route, line.method), line)
  }
  return out
}

/**
 * The readings of a rule: one per line it watches, plus its own route and method when the window
 * has none of them (a count "below" must see zero), plus each route and method it holds a state for
 * (`known`), so that a pending or firing one hears that its requests stopped.
 */
export function readingsOf (rule: AlertRule, lines: RouteStats[], known: Array<{ route: string, method: string }>, baseline?: RouteStats[]): Reading[] {
  const mine = watched(rule, lines)
  const theirs = baseline === undefined ? null : watched(rule, baseline)
  const keys = new Map<string, { route: string, method: string }>()
  for (const line of mine.values()) keys.set(keyOf(line.route as string, line.method as string), { route: line.route as string, method: line.method as string })
  if (rule.route !== '*' && rule.method !== '*') keys.set(keyOf(rule.route, rule.method), { route: rule.route, method: rule.method })
  for (const key of known) keys.set(keyOf(key.route, key.method), key)
  return [...keys.entries()].map(([key, { route, method }]) => {
    const line = mine.get(key)
    const count = line?.count ?? 0
    if (theirs === null) {
      if (rule.measure === 'count') return { route, method, value: count, count }
      return { route, method, value: line === undefined || count < rule.minRequests ? null : measured(line, rule.measure), count }
    }
    const other = theirs.get(key)
    if (line === undefined || other === undefined || count < rule.minRequests || other.count < rule.minRequests) return { route, method, value: null, count }
    const b = measured(line, rule.measure)
    const a = measured(other, rule.measure)
    return { route, method, value: a === 0 ? (b === 0 ? 1 : RATIO_FROM_ZERO) : Math.round((b / a) * 1000) / 1000, count }
  })
}
