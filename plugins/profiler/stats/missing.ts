// Requests the route statistics could not count (issue 37): neither their profile nor a
// statistics-only count of them could be kept (the statistics-only queue full, their write refused).
// They are tallied per period of their start, so that the statistics can say how many requests
// each window lacks; the tallies are written to the store (profile_statistics_missing) with the
// next hand-over, so that every instance sharing it shows them.
import { HOUR_MS, MINUTE_MS } from './rollup.js'

/** Requests missing from the statistics in one period: [spanMs, startMs) of their start. */
export interface MissingWindow {
  spanMs: number
  startMs: number
  count: number
}

/**
 * Tallies handed over to the writer under a statistics stamp and not yet answered for (with the
 * writer, or to be retried): the store holds them once it has recorded that stamp.
 */
export interface StampedTallies {
  source: string
  seq: number
  missing: MissingWindow[]
}

const DAY_MS = 86_400_000

/** Periods held in memory at most; past that the tallies coarsen (minutes to hours to days). */
export const MAX_MISSING_PERIODS = 1_440

/** The coarser spans in turn: a day's minutes fit, then 60 days of hours, then days. */
const SPANS = [MINUTE_MS, HOUR_MS, DAY_MS]

/**
 * The tallies of requests not counted, per period of their start, waiting to be written: at most
 * MAX_MISSING_PERIODS periods (a minute each, coarser once more periods than that are missing; at a
 * day each the newest period takes what does not fit, which no clock reaches in practice).
 */
export class MissingTallies {
  private spanIndex = 0
  private periods = new Map<number, number>()

  /** Requests waiting to be written. */
  get total (): number {
    let total = 0
    for (const count of this.periods.values()) total += count
    return total
  }

  get size (): number {
    return this.periods.size
  }

  /** Adds `count` requests that started at `startMs`. */
  add (startMs: number, count = 1): void {
    if (count <= 0) return
    let key = this.keyOf(startMs)
    while (!this.periods.has(key) && this.periods.size >= MAX_MISSING_PERIODS) {
      if (this.spanIndex === SPANS.length - 1) {
        key = Math.max(...this.periods.keys())
        break
      }
      this.coarsen()
      key = this.keyOf(startMs)
    }
    this.periods.set(key, (this.periods.get(key) ?? 0) + count)
  }

  /** Adds windows taken before (a hand-over whose write did not count them). */
  addWindows (windows: MissingWindow[]): void {
    for (const window of windows) this.add(window.startMs, window.count)
  }

  /** The tallies as windows, oldest first, without taking them. */
  peek (): MissingWindow[] {
    const spanMs = SPANS[this.spanIndex] as number
    return [...this.periods].sort(([a], [b]) => a - b).map(([startMs, count]) => ({ spanMs, startMs, count }))
  }

  /** Takes every tally out (to be written); the span goes back to minutes. */
  take (): MissingWindow[] {
    const windows = this.peek()
    this.periods = new Map()
    this.spanIndex = 0
    return windows
  }

  private keyOf (startMs: number): number {
    const spanMs = SPANS[this.spanIndex] as number
    return Math.floor(startMs / spanMs) * spanMs
  }

  private coarsen (): void {
    this.spanIndex++
    const periods = new Map<number, number>()
    for (const [startMs, count] of this.periods) {
      const key = this.keyOf(startMs)
      periods.set(key, (periods.get(key) ?? 0) + count)
    }
    this.periods = periods
  }
}

/** The windows of the stamped tallies whose stamp the store has not recorded (`recorded`): those it does not hold yet. */
export function unrecordedTallies (stamped: StampedTallies[], recorded: (tallies: StampedTallies) => boolean): MissingWindow[] {
  return stamped.filter(tallies => tallies.missing.length > 0 && !recorded(tallies)).flatMap(tallies => tallies.missing)
}

/** The missing windows of a statistics window as the page shows them: per period of `spanMs` (coarser rows as they are), oldest first. */
export interface MissingAnswer {
  /** Requests missing from the window's figures. */
  total: number
  windows: Array<{ from: string, to: string, count: number }>
}

/**
 * Stored and not-yet-written windows added up per period of at least `spanMs`, for those that
 * overlap [fromMs, toMs).
 */
export function missingAnswer (windows: MissingWindow[], fromMs: number, toMs: number, spanMs: number): MissingAnswer {
  const periods = new Map<string, { startMs: number, spanMs: number, count: number }>()
  let total = 0
  for (const window of windows) {
    if (window.startMs + window.spanMs <= fromMs || window.startMs >= toMs || window.count <= 0) continue
    const span = Math.max(window.spanMs, spanMs)
    const startMs = Math.floor(window.startMs / span) * span
    const key = `${span} ${startMs}`
    const period = periods.get(key) ?? { startMs, spanMs: span, count: 0 }
    period.count += window.count
    periods.set(key, period)
    total += window.count
  }
  return {
    total,
    windows: [...periods.values()].sort((a, b) => a.startMs - b.startMs || a.spanMs - b.spanMs)
      .map(period => ({ from: new Date(period.startMs).toISOString(), to: new Date(period.startMs + period.spanMs).toISOString(), count: period.count }))
  }
}
