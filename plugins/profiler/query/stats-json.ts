// The route statistics of a window, as the page's JSON twin answers them: shared by the page, the
// command line (`profiler stats`) and the MCP tool (`route_stats`), so that all three say the same.
import { statsKeptFrom, type RouteStats } from '../stats/rollup.js'
import { missingAnswer, type MissingAnswer } from '../stats/missing.js'
import type { WindowStats } from '../engine/contract.js'
import { lineKeyOf, trendPeriods, Trends, type PeriodRow, type RollupRange, type Trend } from '../stats/trend.js'
import { compareLines, lineLabels, type ComparisonLine } from './stats-compare.js'
import { invalid, NO_ROUTE } from './search-filters.js'
import { formatMs } from '../units.js'
import { durationMs, durationText } from '../../../lib/duration.js'

/** The windows offered (the page's buttons), and the default. */
const WINDOWS: Record<string, number> = { '5m': 300_000, '15m': 900_000, '30m': 1_800_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 604_800_000, '30d': 2_592_000_000 }
export const WINDOW_NAMES = Object.keys(WINDOWS) as [string, ...string[]]
export const DEFAULT_WINDOW = '1h'
/**
 * Any other window an alert rule can have (lib/alerts/rules-file.ts: a duration such as 90s, 10m or
 * 2h), up to the longest offered: a rule's link shows the window it reads.
 */
const MIN_WINDOW_MS = 1000
const MAX_WINDOW_MS = 2_592_000_000
export const WINDOW_RULE = `${WINDOW_NAMES.join(', ')} or another duration from 1s to 30d (90s, 10m, 2h)`

/** A window's length and the name the answer gives it (a window offered under its own name: 60m is 1h); undefined: not a window. */
function windowOf (text: string): { name: string, ms: number } | undefined {
  if (Object.hasOwn(WINDOWS, text)) return { name: text, ms: WINDOWS[text] as number }
  const ms = durationMs(text)
  if (ms === undefined || ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS) return undefined
  return { name: WINDOW_NAMES.find(name => WINDOWS[name] === ms) ?? durationText(ms), ms }
}

/** Where the rollups are read from: the service's store, or the command line's read-only one. */
export interface RouteStatsSource {
  routeStats: (nowMs: number, windowMs: number, deployment?: string) => Promise<WindowStats>
  rollupPeriods: (range: RollupRange) => Promise<PeriodRow[]>
}

/**
 * What the statistics are asked for: a window's name (`1h` when empty or absent) and, if any, one
 * deployment (exact name), and another to compare it with.
 */
export interface RouteStatsQuery { window?: string, deployment?: string, compare?: string }

interface RouteStatsLine extends RouteStats {
  /** The listing filtered to this line's requests, from the window's start (a page URL). */
  listing: string
  /** The line's count and p95 per period (see trendSpan), oldest first. */
  trend: Trend
}

/** The listing filtered to one line of the statistics (and its deployment, if one), from the window's start. */
function listingHref (line: RouteStats, fromMs: number, deployment: string | null): string {
  const params = new URLSearchParams()
  if (deployment !== null) params.append('deployment', deployment)
  if (line.method !== null) params.append('method', line.method)
  if (line.status !== null) params.append('status_code', String(line.status))
  params.append('route', line.route ?? NO_ROUTE)
  params.append('start', String(fromMs / 1000))
  params.append('limit', '10')
  params.append('type', 'request')
  return `/_profiler/empty/search/results?${params.toString()}`
}

export interface RouteStatsAnswer {
  window: string
  /** The deployment the lines are of; null: every deployment together. */
  deployment: string | null
  /** The span the lines cover: the window's start (a whole minute; a whole hour past a day), or the statistics' bound's if later. */
  from: string
  to: string
  /** When the statistics' bound (PROFILER_STATS_MAX_AGE) is shorter than the window: the bound, and since when rows are left. */
  bound: { statsMaxAge: string, from: string } | null
  /**
   * When the statistics gave up their oldest hours inside the window to stay within their share of
   * PROFILER_MAX_BYTES (coarsening): since when rows are left (`from` is then that time).
   */
  givenUp: { from: string } | null
  routes: RouteStatsLine[]
  /** The trends' periods: a minute (1h) or an hour, from trendFrom (whole periods) to the current one included. */
  trendSpan: '1m' | '1h'
  trendFrom: string
  /** The deployment compared with `deployment`, and both side by side per line; null without `compare`. */
  compare: string | null
  comparison: ComparisonLine[] | null
  /**
   * Requests the figures lack (they could not be counted: the profiler's queues full while the store
   * failed, or refused by it), per period (a minute for 1h, else an hour) overlapping the span.
   */
  missing: MissingAnswer
}

/**
 * The statistics of the window named (`1h` when empty or absent) ending at `nowMs`, of one
 * deployment or all, kept for `statsMaxAgeMs` (PROFILER_STATS_MAX_AGE); an unknown window is the
 * page's 400, naming the parameter as the caller spells it (`--window` on the command line).
 */
export async function routeStatsJson (source: RouteStatsSource, query: RouteStatsQuery, statsMaxAgeMs: number, parameterName = 'window', nowMs = Date.now()): Promise<RouteStatsAnswer> {
  const given = query.window === undefined || query.window === '' ? DEFAULT_WINDOW : query.window
  const window = windowOf(given)
  if (window === undefined) throw invalid(parameterName, WINDOW_RULE, given)
  const { name, ms: windowMs } = window
  const deployment = query.deployment === undefined || query.deployment === '' ? null : query.deployment
  const compare = query.compare === undefined || query.compare === '' ? null : query.compare
  // The command line spells its parameters --window, --deployment, --compare.
  const dashes = parameterName.startsWith('--') ? '--' : ''
  if (compare !== null && deployment === null) throw invalid(`${dashes}compare`, `a "${dashes}deployment" to compare it with`, compare)
  const { fromMs: windowFromMs, hoursBeforeMs, routes, missing } = await source.routeStats(nowMs, windowMs, deployment ?? undefined)
  const periods = trendPeriods(nowMs, windowMs)
  const trends = new Trends(await source.rollupPeriods({ ...periods, ...(deployment === null ? {} : { deployment }) }), periods)
  const comparison = compare === null || deployment === null
    ? null
    : compareLines(routes, (await source.routeStats(nowMs, windowMs, compare)).routes, deployment, compare)
  const keptFromMs = statsKeptFrom(nowMs, statsMaxAgeMs)
  const givenUpFromMs = Math.min(hoursBeforeMs, nowMs)
  const fromMs = Math.max(windowFromMs, keptFromMs, givenUpFromMs)
  const bound = keptFromMs > windowFromMs ? { statsMaxAge: durationText(statsMaxAgeMs), from: new Date(keptFromMs).toISOString() } : null
  const givenUp = givenUpFromMs > Math.max(windowFromMs, keptFromMs) ? { from: new Date(givenUpFromMs).toISOString() } : null
  const lines = routes.map(line => ({ ...line, listing: listingHref(line, fromMs, deployment), trend: trends.trendOf(lineKeyOf(line)) }))
  return {
    window: name,
    deployment,
    from: new Date(fromMs).toISOString(),
    to: new Date(nowMs).toISOString(),
    bound,
    givenUp,
    routes: lines,
    trendSpan: periods.spanMs === 60_000 ? '1m' : '1h',
    trendFrom: new Date(periods.fromMs).toISOString(),
    compare,
    comparison,
    missing: missingAnswer(missing, fromMs, nowMs + 1, periods.spanMs)
  }
}

/** A line's cells for people: the route (or that none matched), the method, the status, durations in ms. */
export function routeStatsText (line: RouteStats) {
  return {
    ...lineLabels(line),
    p50: formatMs(line.p50Ms),
    p95: formatMs(line.p95Ms),
    p99: formatMs(line.p99Ms),
    max: formatMs(line.maxMs)
  }
}
