// A line's trend as the stats page draws it: an inline SVG polyline per series (no script), with
// the figures in words for its <title> (the image's accessible name). Everything here is numbers
// and times; the template escapes it all the same.
import type { Trend } from '../stats/trend.js'
import { formatMs } from '../units.js'

const WIDTH = 120
const HEIGHT = 24
/** Room for the stroke at the top and bottom. */
const MARGIN = 1.5

export interface Sparkline {
  /** The polyline's points, "x,y x,y ...": one per period with a value. */
  points: string
  /** The figures in words: the series, its periods, and each period's value (oldest first). */
  title: string
}

const coordinate = (n: number): string => String(Math.round(n * 10) / 10)

/** Values (null: no request in that period) scaled to the box: the largest at the top, 0 at the bottom. */
function points (values: Array<number | null>): string {
  const top = Math.max(0, ...values.map(value => value ?? 0))
  const step = values.length > 1 ? WIDTH / (values.length - 1) : 0
  return values.flatMap((value, i) => value === null
    ? []
    : [`${coordinate(i * step)},${coordinate(HEIGHT - MARGIN - (top === 0 ? 0 : value / top) * (HEIGHT - 2 * MARGIN))}`]).join(' ')
}

/** Both sparklines of a line: its requests and its p95 per period (`span`: "minute" or "hour"), from `from` (ISO, UTC). */
export function sparklines (trend: Trend, span: string, from: string): { count: Sparkline, p95: Sparkline } {
  const since = `${trend.counts.length} ${span}s from ${from.slice(0, 16).replace('T', ' ')} UTC`
  return {
    count: { points: points(trend.counts), title: `Requests per ${span}, ${since}: ${trend.counts.join(', ')}` },
    p95: { points: points(trend.p95Ms), title: `p95 per ${span}, ${since}: ${trend.p95Ms.map(ms => ms === null ? 'none' : formatMs(ms)).join(', ')}` }
  }
}
