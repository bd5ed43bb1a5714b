// Why a store is over PROFILER_MAX_BYTES with nothing left that retention may delete: the words
// the listing's `store.reason` gives (state 'over-bound'), the same on both engines.
import type { RetentionLimits } from './contract.js'
import { STATISTICS_SHARE } from './retention-policy.js'

/** 'statistics': over their share with nothing older than the current hour left; 'floor': the profiles at their floor. */
type BoundKind = 'statistics' | 'floor'

interface BoundFacts { used: number, statistics: number, profiles: number, limits: RetentionLimits }

/** The bytes the store holds may move this share (of the last figure told) before the reason is told again with the new figures. */
const REFRESH_SHARE = 0.05

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

function boundReason (kind: BoundKind, facts: BoundFacts): string {
  const { used, statistics, profiles, limits } = facts
  const holds = `the store holds ${mib(used)} of PROFILER_MAX_BYTES=${mib(limits.maxBytes)}`
  if (kind === 'statistics') {
    return `${holds}: the route statistics take ${mib(statistics)}, over their share (${STATISTICS_SHARE * 100}%), with only the current hour's rows left; raise PROFILER_MAX_BYTES`
  }
  return `${holds}: pruning for size stopped at the profiles' floor (${profiles} profiles, kept whatever else holds the bytes); ` +
    `the profiles with their search tables and space not yet given back take ${mib(used - statistics)}, the route statistics ${mib(statistics)}`
}

/**
 * Tells a store's bound state as it changes: over the bound (why) or within it again (null), and
 * again while over it when the bytes moved by more than REFRESH_SHARE, so that the figures the
 * reason gives stay true.
 */
export class BoundReporter {
  private kind: BoundKind | null = null
  private toldUsed = 0

  constructor (private readonly onBound: (reason: string | null) => void) {}

  /** The store's bytes now (`facts.used`) against its bound; `statistics` are the route statistics' bytes. */
  check (facts: BoundFacts): void {
    const { used, statistics, limits } = facts
    const kind = used <= limits.maxBytes ? null : statistics > limits.maxBytes * STATISTICS_SHARE ? 'statistics' : 'floor'
    if (kind === this.kind && (kind === null || Math.abs(used - this.toldUsed) <= this.toldUsed * REFRESH_SHARE)) return
    this.kind = kind
    this.toldUsed = used
    this.onBound(kind === null ? null : boundReason(kind, facts))
  }
}
