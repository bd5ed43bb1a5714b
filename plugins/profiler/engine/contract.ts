// One interface per side of a store engine (SQLite or PostgreSQL): the request thread's reader
// and the writer thread's writer. The queue, the facade and the pages know only these.
import type { ProfileRecord, ProfileSummary, SearchFilters, StoredProfile } from '../profile.js'
import type { RouteStats, StatisticsOnly } from '../stats/rollup.js'
import type { PeriodRow, RollupRange } from '../stats/trend.js'
import type { MissingWindow, StampedTallies } from '../stats/missing.js'
import { withoutPassword } from '../../../lib/postgres/url.js'

/** Which store the writer thread opens (plain data: it crosses to the worker). */
export type StoreTarget =
  | { engine: 'sqlite', path: string, /** How long a statement waits for a lock before it counts as a fault (5 s). */ busyTimeoutMs?: number }
  | {
    engine: 'postgres'
    url: string
    /** Width of a time partition (default one hour). */
    partitionMs?: number
    /** A statement running longer is cancelled, and counts as a fault (default: reads 10 s, writes 30 s). */
    statementTimeoutMs?: number
  }

/** Every read of a store, on the request thread. Rejections that mean "store unusable" close it (the facade reopens). */
export interface StoreReader {
  search: (filters: SearchFilters) => Promise<ProfileSummary[]>
  /** The HAR document of a search's profiles (search-har.ts; SQLite builds it in its reader thread, off the request thread). */
  searchHar: (filters: SearchFilters, version: string) => Promise<string>
  find: (token: string) => Promise<StoredProfile | undefined>
  latest: (type: string) => Promise<StoredProfile | undefined>
  /** The tokens of the profiles just before (older) and just after (newer) this one, of the same type. */
  neighbours: (token: string, type: string) => Promise<{ previous: string | null, next: string | null }>
  /**
   * Route statistics over the window ending at `nowMs`, read from the rollups the writer keeps: of
   * every deployment, or of the one named (exactly); with the requests they lack (`missing`: the
   * stored tallies of requests that could not be counted, per period overlapping the window, and of
   * `stamped` those whose stamp the store has not recorded). Read in one snapshot: how far minute
   * rows were given up, the rows, the tallies and the stamps (a coarsening or a hand-over committed
   * between two reads made the window lose rows, or count a tally twice).
   */
  routeStats: (nowMs: number, windowMs: number, deployment?: string, stamped?: StampedTallies[]) => Promise<WindowStats>
  /** The rollup rows of a range, added up per line and period (the trends, and one line's requests). */
  rollupPeriods: (range: RollupRange) => Promise<PeriodRow[]>
  /** Bytes the stored profiles take (what the byte bound is measured on). */
  storeBytes: () => Promise<number>
  /** The deployments that ever wrote to this store, by name. */
  deployments: () => Promise<string[]>
  /** Calls `each` with every stored token (at open, to fill the token set); resolves with the count. */
  eachToken: (each: (token: string) => void) => Promise<number>
  /** Whether a read's error means the store cannot be read now (a 503; the reader is reopened), rather than a bug. */
  isFault: (err: unknown) => boolean
  close: () => Promise<void>
}

/** A window's route statistics, and the requests missing from them (stats/missing.ts). */
/** A window's statistics: from its start (fromMs); every hour row before hoursBeforeMs was given up to the statistics' share of the bytes (0: none). */
export interface WindowStats { fromMs: number, hoursBeforeMs: number, routes: RouteStats[], missing: MissingWindow[] }

/**
 * Which hand-over a batch's statistics-only requests came with, so that they are counted once even
 * when the batch is written twice: a batch whose commit's answer was lost (the PostgreSQL
 * connection cut after the server committed, the writer thread gone after its commit) is retried
 * with the same stamp. The engine records (source, seq) in the same transaction as the increments
 * (profile_statistics_stamps); a stamp recorded already means the batch was committed before, and
 * its statistics-only requests are not counted again (its kept profiles are known by their tokens).
 * Bounded: the same transaction deletes the source's stamps below `lowestOutstanding`, so a live
 * source holds only the stamps of batches still awaiting an answer; the stamps of a source that
 * stopped go with retention (STATISTICS_STAMP_MAX_AGE_MS).
 */
export interface StatisticsStamp {
  /** The handing-over store's id: random, made once per ProfileStore (a restarted process is a new source). */
  source: string
  /** Increases with each hand-over carrying statistics-only requests; a retry of the same batch keeps it. */
  seq: number
  /** The source's lowest seq still awaiting an answer (this one's, or lower). */
  lowestOutstanding: number
}

/** What a batch's write did. */
export interface WriteResult {
  written: number
  /** Tokens of profiles that were not stored (their token is free again). */
  rejected: string[]
}

/**
 * The store's bounds: whichever of the profiles' bounds is hit first, the oldest profiles go. The
 * route statistics have their own: pruning profiles leaves them alone.
 */
export interface RetentionLimits {
  maxProfiles: number
  maxAgeMs: number
  maxBytes: number
  /** Rollup rows older than this are deleted (PROFILER_STATS_MAX_AGE); minute rows after two days at most. */
  statsMaxAgeMs: number
}

/** What a writer tells the request thread on its own, between batches. */
export interface WriterEvents {
  /** Profiles pruned (their tokens are free again) and the count left. */
  onDeleted: (tokens: string[], count: number) => void
  /** A background step (pruning) failed; the writer goes on. */
  onError: (message: string) => void
  /** Tokens another writer of a shared store took first. */
  onTaken: (tokens: string[]) => void
  /**
   * The store is over PROFILER_MAX_BYTES with nothing left that retention may delete (why), or
   * holds it again (null): told once per change.
   */
  onBound: (reason: string | null) => void
}

/** Every write of a store, in the writer thread. */
export interface StoreWriter {
  /** Stored profiles, as far as this writer knows. */
  readonly count: number
  /**
   * Writes a batch in one transaction, with the requests recorded for the statistics only (not
   * kept as profiles: no profile row, counted in the rollups through the same function). With a
   * `stamp` the statistics-only requests are counted unless that stamp was recorded before
   * (StatisticsStamp); without one they are always counted. `missing` (tallies of requests that could
   * not be counted, stats/missing.ts) is added to the store's under the same rule as the statistics-only requests.
   */
  write: (batch: ProfileRecord[], statisticsOnly?: StatisticsOnly[], stamp?: StatisticsStamp, missing?: MissingWindow[]) => Promise<WriteResult>
  /** Runs the retention bounds (as seen at `now`) until they hold; stamps older than STATISTICS_STAMP_MAX_AGE_MS go too. */
  prune: (now: number) => Promise<void>
  /** Whether an error means the store failed (and may clear), rather than the data being bad. */
  isFault: (err: unknown) => boolean
  /**
   * Whether an error may be about the data written (a constraint, a value the engine cannot hold),
   * so that writing each profile alone can prove which one it is; anything else is retried whole.
   */
  isContentError: (err: unknown) => boolean
  close: () => Promise<void>
}

/** A redacted description of a target, for log lines and status: never a password. */
export function describeTarget (target: StoreTarget): string {
  if (target.engine === 'sqlite') return target.path
  return withoutPassword(target.url)
}
