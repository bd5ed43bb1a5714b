// Why a store is over PROFILER_MAX_BYTES with nothing left that retention may delete: the words
// the listing's `store.reason` gives (state 'over-bound'), the same on both engines.
import type { RetentionLimits } from './contract.js'
import { STATISTICS_SHARE } from './retention-policy.js'

/** 'statistics': over their share with nothing older than the current hour left; 'floor': the profiles at their floor. */
export type BoundKind = 'statistics' | 'floor'

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

export function boundReason (kind: BoundKind, facts: { used: number, statistics: number, profiles: number, limits: RetentionLimits }): string {
  const { used, statistics, profiles, limits } = facts
  const holds = `the store holds ${mib(used)} of PROFILER_MAX_BYTES=${mib(limits.maxBytes)}`
  if (kind === 'statistics') {
    return `${holds}: the route statistics take ${mib(statistics)}, over their share (${STATISTICS_SHARE * 100}%), with only the current hour's rows left; raise PROFILER_MAX_BYTES`
  }
  return `${holds}: pruning for size stopped at the profiles' floor (${profiles} profiles); something other than the profiles and the statistics holds the bytes`
}
