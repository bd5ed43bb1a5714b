// Requests recorded for the statistics only (the sample left them out), held as columns between the
// request thread and the writer. At PROFILER_SAMPLE=0.01 nearly every request is one of them: an
// object each, kept up to a second (statisticsDelayMs), outlived the young generation, and the batch
// of them was structured-cloned object by object (about 0.6 µs a request on the request thread).
// As columns, a request is five array slots; the hand-over is four typed arrays and a short list of
// the distinct method and route pairs.
import { ID_SLOTS_PER_MS } from '../profile.js'
import { profileDuration, type QueuedProfile } from '../capture/capture.js'
import type { StatisticsOnly } from '../stats/rollup.js'

/** A hand-over's statistics-only requests, as they cross to the writer thread. */
export interface StatisticsBatch {
  /** Each distinct method and route of the batch once. */
  pairs: Array<[method: string, route: string | null]>
  /** Per request: its index in `pairs`. */
  pair: Uint32Array
  startMs: Float64Array
  durationMs: Float64Array
  statusCode: Uint16Array
}

export const EMPTY_STATISTICS: StatisticsBatch = { pairs: [], pair: new Uint32Array(0), startMs: new Float64Array(0), durationMs: new Float64Array(0), statusCode: new Uint16Array(0) }

/** How many requests a batch holds. */
export const batchLength = (batch: StatisticsBatch): number => batch.pair.length

/** The requests waiting to be handed over, oldest first. */
export class PendingStatistics {
  private startMs: number[] = []
  private durationMs: number[] = []
  private statusCode: number[] = []
  private method: string[] = []
  private route: Array<string | null> = []

  get length (): number {
    return this.startMs.length
  }

  push (startMs: number, method: string, route: string | null, statusCode: number, durationMs: number): void {
    this.startMs.push(startMs)
    this.durationMs.push(durationMs)
    this.statusCode.push(statusCode)
    this.method.push(method)
    this.route.push(route)
  }

  /** Takes the oldest `count` (all when fewer wait) out, as a batch. */
  take (count: number): StatisticsBatch {
    const n = Math.min(count, this.length)
    const batch: StatisticsBatch = { pairs: [], pair: new Uint32Array(n), startMs: new Float64Array(n), durationMs: new Float64Array(n), statusCode: new Uint16Array(n) }
    // Pairs by route, then method: the route strings are the route table's own, the methods Node's.
    const index = new Map<string | null, Map<string, number>>()
    for (let i = 0; i < n; i++) {
      const method = this.method[i] as string
      const route = this.route[i] ?? null
      let byMethod = index.get(route)
      if (byMethod === undefined) index.set(route, byMethod = new Map())
      let at = byMethod.get(method)
      if (at === undefined) {
        at = batch.pairs.push([method, route]) - 1
        byMethod.set(method, at)
      }
      batch.pair[i] = at
      batch.startMs[i] = this.startMs[i] as number
      batch.durationMs[i] = this.durationMs[i] as number
      batch.statusCode[i] = this.statusCode[i] as number
    }
    for (const column of [this.startMs, this.durationMs, this.statusCode, this.method, this.route]) column.splice(0, n)
    return batch
  }

  clear (): void {
    this.startMs = []
    this.durationMs = []
    this.statusCode = []
    this.method = []
    this.route = []
  }
}

/** A batch's requests as the store counts them (the writer's side). */
export function statisticsOf (batch: StatisticsBatch): StatisticsOnly[] {
  const requests: StatisticsOnly[] = []
  for (let i = 0; i < batch.pair.length; i++) {
    const [method, route] = batch.pairs[batch.pair[i] as number] as [string, string | null]
    requests.push({ startMs: batch.startMs[i] as number, method, route, statusCode: batch.statusCode[i] as number, durationMs: batch.durationMs[i] as number })
  }
  return requests
}

/**
 * The request of a profile that will not be stored, as the statistics count it: the values its
 * profile gives the rollups (its start is the one its id encodes; a capture's duration as shaped).
 */
export function requestOf (profile: QueuedProfile): StatisticsOnly {
  const durationMs = 'kind' in profile ? profileDuration(profile.totalMs) : profile.durationMs
  return { startMs: Math.floor(profile.id / ID_SLOTS_PER_MS), method: profile.method, route: profile.route, statusCode: profile.statusCode, durationMs }
}
