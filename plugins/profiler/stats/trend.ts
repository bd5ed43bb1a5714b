// Route statistics over time, engine-neutral: which rollup rows a window's trend reads, the
// per-period count and p95 of each line (the page's sparklines), and where one duration stands
// among a line's requests (a profile's percentile). The SQL that reads the rows lives in engine/.
import { addEncodedHistogram, bucketOf, denseHistogram, percentiles, type DenseHistogram } from './histogram.js'
import { HOUR_MS, MINUTE_MS, windowRanges, type RouteStats } from './rollup.js'
import { roundMs } from '../units.js'

/** A line as the rollup rows key it: '' and '' with the status when no route matched, else status 0. */
export interface LineKey { method: string, route: string, status: number }

/** Rollup rows of one span, from `fromMs` (inclusive) to `toMs` (exclusive): of every deployment or one, of every line or one. */
export interface RollupRange {
  spanMs: number
  fromMs: number
  toMs: number
  deployment?: string
  line?: LineKey
}

/**
 * One line's rows of one period, added up over the deployments by the store: method, route, status,
 * the period's start, count, max in ms, and the rows' encoded histograms one after the other.
 */
export type PeriodRow = [method: string, route: string, status: number, startMs: number, count: number, maxMs: number, histograms: Uint8Array]

/** The same key text for a stored row and a line of the page (a method has no space). */
const keyText = (status: number, method: string, route: string): string => `${status} ${method} ${route}`

export function lineKeyOf (line: Pick<RouteStats, 'method' | 'route' | 'status'>): LineKey {
  return line.route === null ? { method: '', route: '', status: line.status ?? 0 } : { method: line.method ?? '', route: line.route, status: 0 }
}

/** The periods a window's trend has: minutes for a window of an hour or less, else hours; the current period included. */
export function trendPeriods (nowMs: number, windowMs: number): { spanMs: number, fromMs: number, toMs: number, points: number } {
  const spanMs = windowMs <= HOUR_MS ? MINUTE_MS : HOUR_MS
  const fromMs = Math.floor(windowRanges(nowMs, windowMs).fromMs / spanMs) * spanMs
  const toMs = (Math.floor(nowMs / spanMs) + 1) * spanMs
  return { spanMs, fromMs, toMs, points: (toMs - fromMs) / spanMs }
}

/** One line's trend: a count and a p95 (null: no request) per period, oldest first. */
export interface Trend { counts: number[], p95Ms: Array<number | null> }

/** Each line's trend over the periods, by the line's key (see trendOf). */
export class Trends {
  private readonly trends = new Map<string, Trend>()

  constructor (rows: PeriodRow[], private readonly periods: { spanMs: number, fromMs: number, points: number }) {
    const histogram = denseHistogram()
    for (const [method, route, status, startMs, count, maxMs, histograms] of rows) {
      const index = (startMs - periods.fromMs) / periods.spanMs
      if (count === 0 || index < 0 || index >= periods.points) continue
      const trend = this.trendOf({ method, route, status }, true)
      histogram.fill(0)
      addEncodedHistogram(histogram, histograms)
      trend.counts[index] = count
      trend.p95Ms[index] = roundMs(percentiles(histogram, [95], maxMs)[0] ?? 0)
    }
  }

  /** A line's trend; every period empty when the line had no request in them. */
  trendOf (line: LineKey, create = false): Trend {
    const text = keyText(line.status, line.method, line.route)
    const found = this.trends.get(text)
    if (found !== undefined) return found
    const trend = { counts: new Array<number>(this.periods.points).fill(0), p95Ms: new Array<number | null>(this.periods.points).fill(null) }
    if (create) this.trends.set(text, trend)
    return trend
  }
}

/**
 * Where `durationMs` stands among the requests of the rows (one line's): the percentage of them in
 * its histogram bucket or a lower one (as fast or faster, to the bucket's 9%), a whole number from
 * 0 to 100; null when the rows hold no request.
 */
export function percentileRank (rows: PeriodRow[], durationMs: number): { percentile: number, count: number } | null {
  const histogram: DenseHistogram = denseHistogram()
  let count = 0
  for (const row of rows) {
    count += row[4]
    addEncodedHistogram(histogram, row[6])
  }
  if (count === 0) return null
  const own = bucketOf(durationMs)
  let atOrBelow = 0
  for (let bucket = 0; bucket <= own; bucket++) atOrBelow += histogram[bucket] ?? 0
  return { percentile: Math.floor(100 * atOrBelow / count), count }
}

/** The rollup ranges a window ending at `nowMs` reads for one line: the minutes at its start, then the hours (see windowRanges). */
export function lineRanges (nowMs: number, windowMs: number, line: LineKey, deployment?: string): RollupRange[] {
  const { minutes, hoursFrom } = windowRanges(nowMs, windowMs)
  const scope = deployment === undefined ? { line } : { line, deployment }
  return [
    { spanMs: MINUTE_MS, fromMs: minutes[0], toMs: minutes[1], ...scope },
    { spanMs: HOUR_MS, fromMs: hoursFrom, toMs: Number.MAX_SAFE_INTEGER, ...scope }
  ]
}
