// What a webhook receives: one JSON object per change to firing or resolved, and per reminder. Its
// `text` is what Slack (and chat tools that read Slack's incoming-webhook body) shows as is.
import { createHmac } from 'node:crypto'
import { durationText } from '../../../lib/duration.js'
import type { AlertRule } from '../../../lib/alerts/rules-file.js'
import { formatMs } from '../units.js'
import type { Reading } from './readings.js'
import { windowRanges } from '../stats/rollup.js'

export interface Notification {
  rule: string
  state: 'firing' | 'resolved'
  /** A reminder that the rule is still firing (repeatEvery). */
  repeat: boolean
  route: string
  method: string
  /** The deployment read (for a comparison, the one compared); null: every deployment together. */
  deployment: string | null
  compareTo: string | null
  measure: AlertRule['measure']
  /** The value read: ms (p50, p95, p99), a share from 0 to 1 (5xx, 4xx), requests (count), or B's over A's (a comparison); null: too few requests. */
  value: number | null
  /** The threshold crossed: for a resolution, the resolve threshold. */
  threshold: number
  /** The window read, as the rules file spells it. */
  window: string
  /** When the state began (ISO 8601). */
  since: string
  /** The stats page narrowed to the route and the rule's window; the route's profiles of that window, slowest first. */
  links: { stats: string, profiles: string }
  text: string
}

/**
 * Links to the route's statistics over the rule's own window, and to its slowest profiles of that
 * window (the listing sorted by duration, from the window's first minute, as the statistics read
 * it, to `nowMs`); absolute when the rules file gives `profilerUrl`. A null route or method: the
 * rule's every one (a `*` rule on its alerts page line).
 */
export function alertLinks (rule: AlertRule, route: string | null, method: string | null, nowMs: number, profilerUrl: string | null): Notification['links'] {
  const base = profilerUrl ?? ''
  const stats = new URLSearchParams({ window: durationText(rule.windowMs) })
  if (rule.deployment !== null) stats.append('deployment', rule.deployment)
  if (rule.compareTo !== null) stats.append('compare', rule.compareTo)
  if (route !== null) stats.append('route', route)
  const profiles = new URLSearchParams()
  if (rule.deployment !== null) profiles.append('deployment', rule.deployment)
  if (method !== null) profiles.append('method', method)
  if (route !== null) profiles.append('route', route)
  profiles.append('start', String(Math.floor(windowRanges(nowMs, rule.windowMs).fromMs / 1000)))
  // Unix seconds, inclusive to the end of that second.
  profiles.append('end', String(Math.floor(nowMs / 1000)))
  profiles.append('sort', 'duration')
  profiles.append('limit', '10')
  profiles.append('type', 'request')
  return { stats: `${base}/_profiler/stats?${stats.toString()}`, profiles: `${base}/_profiler/empty/search/results?${profiles.toString()}` }
}

/** A value as people read it: 812 ms, 42%, 130 requests, 2.4× A. */
export function valueText (rule: AlertRule, value: number | null): string {
  if (value === null) return 'too few requests'
  if (rule.compareTo !== null) return `${value}× ${rule.compareTo}`
  if (rule.measure === 'count') return `${value} requests`
  if (rule.measure === '5xx' || rule.measure === '4xx') return `${Math.round(value * 1000) / 10}%`
  return formatMs(value)
}

export function notification (rule: AlertRule, reading: Reading, kind: 'firing' | 'repeat' | 'resolved', sinceMs: number, nowMs: number, profilerUrl: string | null): Notification {
  const state = kind === 'resolved' ? 'resolved' : 'firing'
  const threshold = kind === 'resolved' ? rule.resolve : rule.threshold
  const links = alertLinks(rule, reading.route, reading.method, nowMs, profilerUrl)
  const where = `${reading.method} ${reading.route}${rule.deployment === null ? '' : ` on ${rule.deployment}`}`
  const measure = rule.compareTo === null ? rule.measure : `${rule.measure} against ${rule.compareTo}`
  const verb = kind === 'resolved' ? 'Resolved' : kind === 'repeat' ? 'Still firing' : 'Firing'
  const sign = kind === 'resolved' ? (rule.direction === 'above' ? '<=' : '>=') : (rule.direction === 'above' ? '>' : '<')
  const text = `${verb}: ${rule.name}: ${measure} of ${where} is ${valueText(rule, reading.value)} (${sign} ${valueText(rule, threshold)}) over ${durationText(rule.windowMs)}. Statistics: ${links.stats}`
  return {
    rule: rule.name,
    state,
    repeat: kind === 'repeat',
    route: reading.route,
    method: reading.method,
    deployment: rule.deployment,
    compareTo: rule.compareTo,
    measure: rule.measure,
    value: reading.value,
    threshold,
    window: durationText(rule.windowMs),
    since: new Date(sinceMs).toISOString(),
    links,
    text: chatEscaped(text)
  }
}

/** Slack's control characters in message text (a rule or route named `<!channel>` stays text). */
function chatEscaped (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** X-Profiler-Signature's value: `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>` (Stripe's and Slack's scheme). */
export function signature (secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
}
