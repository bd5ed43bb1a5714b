// Where one profile stood on its route: the share of the route's requests over the last 24 hours
// that took as long or less, read from the rollups (every request counted, not only stored ones).
import type { StoredProfile } from '../profile.js'
import { lineRanges, percentileRank, type PeriodRow, type RollupRange } from '../stats/trend.js'

const DAY_MS = 86_400_000

/** Where the rollup rows are read from: the service's store, or the command line's read-only one. */
export interface RollupSource {
  rollupPeriods: (range: RollupRange) => Promise<PeriodRow[]>
}

export interface RouteStanding {
  /** "p97": 97% of the route's requests took as long or less (to the histogram's 9% bucket). */
  percentile: number
  /** The route's requests it is ranked among (every deployment). */
  requests: number
  window: '24h'
}

/**
 * The profile's percentile among its route's requests (its route pattern and method; when no route
 * matched, the unmatched requests of its status) over the 24 hours ending at `nowMs`, every
 * deployment together; null when the rollups hold none (kept shorter, or recorded before them).
 */
export async function routeStanding (source: RollupSource, profile: Pick<StoredProfile, 'route' | 'method' | 'status' | 'durationMs'>, nowMs = Date.now()): Promise<RouteStanding | null> {
  const line = profile.route === null ? { method: '', route: '', status: profile.status } : { method: profile.method, route: profile.route, status: 0 }
  const rows = (await Promise.all(lineRanges(nowMs, DAY_MS, line).map(async range => await source.rollupPeriods(range)))).flat()
  const rank = percentileRank(rows, profile.durationMs)
  return rank === null ? null : { percentile: rank.percentile, requests: rank.count, window: '24h' }
}
