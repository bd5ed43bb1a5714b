// Route statistics, engine-neutral: what a batch of recorded requests adds to the per-minute and
// per-hour rollup rows, how long those rows are kept, and how rows of a window add up to one line
// per route. The SQL that reads and writes the rows lives with each engine's writer and reader.
// The rows count requests, not stored profiles: pruning profiles leaves them alone.
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../profile.js'
import { addEncodedHistogram, addHistogram, bucketOf, decodeHistogram, denseHistogram, encodeHistogram, percentiles, type Histogram } from './histogram.js'
import { roundMs } from '../units.js'

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
/** Each profile is counted in its minute's row and its hour's row: a window reads whole hours, and minutes at its start. */
const SPANS = [MINUTE_MS, HOUR_MS]

/** What a rollup row is keyed by: a period, a deployment, a route and method, or (no route matched) a status. */
export interface RollupKey {
  spanMs: number
  startMs: number
  /** The deployment that recorded the requests ('' for rows from before the column existed, when it was not known). */
  deployment: string
  /** '' when no route matched. */
  method: string
  /** The route pattern; '' when no route matched. */
  route: string
  /** The status code when no route matched; 0 for matched routes. */
  status: number
}

export interface RollupValues {
  count: number
  /** Of those, the requests kept as profiles (PROFILER_SAMPLE and its keep-rules). */
  kept: number
  /** Counts of 1xx, 2xx, 3xx, 4xx, 5xx responses. */
  classes: [number, number, number, number, number]
  sumMs: number
  maxMs: number
  histogram: Histogram
}

export interface RollupRow extends RollupKey, RollupValues {}

/**
 * What the rollups count of one request: its values as recorded, whether or not a profile of it is
 * stored (a request recorded for the statistics only goes through the same path).
 */
export interface CountedRequest {
  /** The request's start, epoch milliseconds. */
  startMs: number
  method: string
  route: string | null
  statusCode: number
  durationMs: number
  /** The deployment that recorded it (PROFILER_DEPLOYMENT). */
  deployment: string
  /** Whether it was kept as a profile (false: recorded for the statistics only, or its profile not stored). */
  kept: boolean
}

/** A request not kept as a profile, as the request thread hands it over: the writer adds its deployment. */
export type StatisticsOnly = Omit<CountedRequest, 'deployment' | 'kept'>

/** A profile's request, recorded by `deployment`, as the rollups count it (its start is the one its id encodes). */
export function countedRequest (profile: Pick<ProfileRecord, 'id' | 'method' | 'route' | 'statusCode' | 'durationMs'>, deployment: string, kept: boolean): CountedRequest {
  return { startMs: Math.floor(profile.id / ID_SLOTS_PER_MS), method: profile.method, route: profile.route, statusCode: profile.statusCode, durationMs: profile.durationMs, deployment, kept }
}

/** A request recorded for the statistics only, by `deployment`, as the rollups count it. */
export function countedStatisticsOnly (request: StatisticsOnly, deployment: string): CountedRequest {
  // Written out, not spread: the writer makes one for every request the sample left out.
  return { startMs: request.startMs, method: request.method, route: request.route, statusCode: request.statusCode, durationMs: request.durationMs, deployment, kept: false }
}

/**
 * Minute rows are kept two days at most (less when the statistics' bound is shorter): only windows
 * of a day or less read minutes (see windowRanges); longer ones read whole hours.
 */
const MINUTE_ROWS_MAX_AGE_MS = 2 * 86_400_000

/**
 * The rows the statistics' bound deletes at `nowMs`, per span: those whose period ended by the
 * bound's start (start_ms <= the value). An hour that straddles the bound's start stays whole.
 */
export function expiredRollups (nowMs: number, statsMaxAgeMs: number): Array<{ spanMs: number, startThroughMs: number }> {
  return [
    { spanMs: MINUTE_MS, startThroughMs: nowMs - Math.min(statsMaxAgeMs, MINUTE_ROWS_MAX_AGE_MS) - MINUTE_MS },
    { spanMs: HOUR_MS, startThroughMs: nowMs - statsMaxAgeMs - HOUR_MS }
  ]
}

export const emptyValues = (): RollupValues => ({ count: 0, kept: 0, classes: [0, 0, 0, 0, 0], sumMs: 0, maxMs: 0, histogram: new Map() })

/**
 * The rows a batch of requests touches, each with what the batch adds to it. Each row has a string
 * key, built without a JSON.stringify or a key object per request: the numbers and the method (an
 * HTTP token) hold no newline, the deployment's length says where it ends, and the route comes last.
 */
export function rollupDeltas (profiles: Iterable<CountedRequest>): RollupRow[] {
  const rows = new Map<string, RollupRow>()
  for (const profile of profiles) {
    const matched = profile.route !== null
    const method = matched ? profile.method : ''
    const route = profile.route ?? ''
    const status = matched ? 0 : profile.statusCode
    const { deployment, durationMs } = profile
    const keyEnd = `\n${status}\n${method}\n${deployment.length}:${deployment}${route}`
    const statusClass = Math.floor(profile.statusCode / 100) - 1
    const bucket = bucketOf(durationMs)
    for (const spanMs of SPANS) {
      const startMs = Math.floor(profile.startMs / spanMs) * spanMs
      const text = `${spanMs}\n${startMs}${keyEnd}`
      let row = rows.get(text)
      if (row === undefined) {
        row = { spanMs, startMs, deployment, method, route, status, ...emptyValues() }
        rows.set(text, row)
      }
      row.count++
      if (profile.kept) row.kept++
      if (statusClass >= 0 && statusClass < 5) row.classes[statusClass as 0 | 1 | 2 | 3 | 4]++
      row.sumMs += durationMs
      row.maxMs = Math.max(row.maxMs, durationMs)
      row.histogram.set(bucket, (row.histogram.get(bucket) ?? 0) + 1)
    }
  }
  return [...rows.values()]
}

/** A stored row with a batch's delta added (rows only grow; the statistics' bound deletes them whole). */
export function addDelta (stored: RollupValues, delta: RollupValues): RollupValues {
  const histogram = new Map(stored.histogram)
  addHistogram(histogram, delta.histogram)
  return {
    count: stored.count + delta.count,
    kept: stored.kept + delta.kept,
    classes: stored.classes.map((n, i) => n + (delta.classes[i] ?? 0)) as RollupValues['classes'],
    sumMs: stored.sumMs + delta.sumMs,
    maxMs: Math.max(stored.maxMs, delta.maxMs),
    histogram
  }
}

/** A rollup row's values as both engines store them (columns aliased c1..c5, sumMs, maxMs; histogram encoded). */
export interface StoredRollupValues {
  count: number
  kept: number
  c1: number
  c2: number
  c3: number
  c4: number
  c5: number
  sumMs: number
  maxMs: number
  histogram: Uint8Array
}

export interface StoredRollupRow extends RollupKey, StoredRollupValues {}

export function fromStoredValues ({ count, kept, c1, c2, c3, c4, c5, sumMs, maxMs, histogram }: StoredRollupValues): RollupValues {
  return { count, kept, classes: [c1, c2, c3, c4, c5], sumMs, maxMs, histogram: decodeHistogram(histogram) }
}

export function toStoredValues (values: RollupValues): StoredRollupValues {
  const [c1, c2, c3, c4, c5] = values.classes
  return { count: values.count, kept: values.kept, c1, c2, c3, c4, c5, sumMs: values.sumMs, maxMs: values.maxMs, histogram: encodeHistogram(values.histogram) }
}

/** One line of the statistics page. */
export interface RouteStats {
  /** The route pattern; null for requests no route matched. */
  route: string | null
  /** null for requests no route matched (they are grouped by status). */
  method: string | null
  /** The status code of unmatched requests; null for routes. */
  status: number | null
  /** Requests seen (every request, kept or not). */
  count: number
  /** Of those, the requests kept as profiles. */
  kept: number
  statusClasses: { '1xx': number, '2xx': number, '3xx': number, '4xx': number, '5xx': number }
  meanMs: number
  p50Ms: number
  p95Ms: number
  p99Ms: number
  maxMs: number
}

/**
 * A window's rollup rows of one route and method (or status), added up by the store's query
 * (GROUP BY: no value per row crosses into JavaScript, which cost ~2.5 µs a row): method, route,
 * status, count, the five status classes, sum and max in ms, the rows' encoded histograms one
 * after the other (pairs of one row followed by another's are still pairs), and the kept count.
 */
export type WindowRow = [method: string, route: string, status: number, count: number, c1: number, c2: number, c3: number, c4: number, c5: number, sumMs: number, maxMs: number, histograms: Uint8Array, kept: number]

interface WindowGroup {
  method: string
  route: string
  status: number
  count: number
  kept: number
  classes: [number, number, number, number, number]
  sumMs: number
  maxMs: number
  /** The histograms' bytes as the store returned them (one chunk per span): read when the lines are. */
  histograms: Uint8Array[]
}

/**
 * A window's rows added up per route and method (or status), then read as lines slowest p95
 * first. The store adds up each span's rows (the minutes at the window's start, then the hours);
 * these totals add the spans together, and read each line's histogram bytes when the lines are made.
 */
export class WindowTotals {
  private readonly groups = new Map<string, WindowGroup>()

  add ([method, route, status, count, c1, c2, c3, c4, c5, sumMs, maxMs, histograms, kept]: WindowRow): void {
    // A method has no space (an HTTP token), so status, method and route make an unambiguous key.
    const text = `${status} ${method} ${route}`
    let group = this.groups.get(text)
    if (group === undefined) {
      group = { method, route, status, count: 0, kept: 0, classes: [0, 0, 0, 0, 0], sumMs: 0, maxMs: 0, histograms: [] }
      this.groups.set(text, group)
    }
    group.count += count
    group.kept += kept
    group.classes[0] += c1
    group.classes[1] += c2
    group.classes[2] += c3
    group.classes[3] += c4
    group.classes[4] += c5
    group.sumMs += sumMs
    group.maxMs = Math.max(group.maxMs, maxMs)
    group.histograms.push(histograms)
  }

  lines (): RouteStats[] {
    // One dense array for every line in turn: memory stays that of the bytes read, however many lines.
    const histogram = denseHistogram()
    return [...this.groups.values()].filter(group => group.count > 0).map(group => {
      const [c1, c2, c3, c4, c5] = group.classes
      histogram.fill(0)
      for (const bytes of group.histograms) addEncodedHistogram(histogram, bytes)
      const [p50, p95, p99] = percentiles(histogram, [50, 95, 99], group.maxMs)
      const matched = group.route !== ''
      return {
        route: matched ? group.route : null,
        method: matched ? group.method : null,
        status: matched ? null : group.status,
        count: group.count,
        kept: group.kept,
        statusClasses: { '1xx': c1, '2xx': c2, '3xx': c3, '4xx': c4, '5xx': c5 },
        meanMs: roundMs(group.sumMs / group.count),
        p50Ms: roundMs(p50 ?? 0),
        p95Ms: roundMs(p95 ?? 0),
        p99Ms: roundMs(p99 ?? 0),
        maxMs: roundMs(group.maxMs)
      }
    }).sort((a, b) => b.p95Ms - a.p95Ms || b.count - a.count || String(a.route).localeCompare(String(b.route)) || String(a.method).localeCompare(String(b.method)) || (a.status ?? 0) - (b.status ?? 0))
  }
}

/** The longest window that starts with minute rows (they are kept two days at most: MINUTE_ROWS_MAX_AGE_MS). */
const MINUTE_WINDOW_MAX_MS = 86_400_000

/**
 * Which rows make up a window ending now: up to a day, minute rows up to the first whole hour, then
 * hour rows; a longer window (7d, 30d) starts at the hour its start falls in, and reads hours only,
 * and so does a shorter one whose first minutes were given up to the statistics' share of the
 * bytes (every minute row before `minutesBeforeMs` is gone: profile_statistics_coarsened).
 */
export function windowRanges (nowMs: number, windowMs: number, minutesBeforeMs = 0): { fromMs: number, minutes: [number, number], hoursFrom: number } {
  const minuteFrom = Math.floor((nowMs - windowMs) / MINUTE_MS) * MINUTE_MS
  if (windowMs > MINUTE_WINDOW_MAX_MS || minuteFrom < minutesBeforeMs) {
    const fromMs = Math.floor((nowMs - windowMs) / HOUR_MS) * HOUR_MS
    return { fromMs, minutes: [fromMs, fromMs], hoursFrom: fromMs }
  }
  const fromMs = minuteFrom
  const firstHour = Math.ceil(fromMs / HOUR_MS) * HOUR_MS
  return { fromMs, minutes: [fromMs, firstHour], hoursFrom: firstHour }
}

/** The oldest hour the statistics' bound leaves at `nowMs` (see expiredRollups). */
export function statsKeptFrom (nowMs: number, statsMaxAgeMs: number): number {
  return Math.floor((nowMs - statsMaxAgeMs) / HOUR_MS) * HOUR_MS
}
