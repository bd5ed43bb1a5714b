// Messages between the request thread (writer-client.ts) and the writer thread (writer/writer-worker.ts).
import type { RedactionRules } from '../../../lib/redact.js'
import type { ProcessContext } from '../panels/panel.js'
import type { QueuedProfile } from '../capture/capture.js'
import type { RetentionLimits, StatisticsStamp, StoreTarget } from '../engine/contract.js'
import type { StatisticsBatch } from './statistics-columns.js'
import type { MissingWindow } from '../stats/missing.js'
import type { ExportSettings } from '../export/otlp/profile-export.js'
import type { ExportState } from '../schemas.js'
import type { BatchRuns } from '../panels/timeline/run-slab.js'

/** What the request thread hands the writer about its process (plain data: it crosses to the worker). */
export type ProcessFacts = Omit<ProcessContext, 'redactor'>

export interface WriterSettings {
  target: StoreTarget
  /** This deployment's name, written with every profile. */
  deployment: string
  /** The redaction rules on top of the built-in ones: captures are redacted in the writer thread. */
  redaction?: RedactionRules
  retention: RetentionLimits
  retentionIntervalMs: number
  /** What the per-process panels read (the environment); absent: the profiles have none. */
  process?: ProcessFacts
  /** Where stored profiles are sent as traces (OTLP/HTTP); absent: they are not. */
  export?: ExportSettings
}

export type WriterRequest =
  /**
   * A batch of profiles, and requests recorded for the statistics only (not kept as profiles), with
   * the stamp that has them counted once (present when there are any; kept when the batch is retried),
   * and under the same stamp the tallies of requests that could not be counted (stats/missing.ts).
   * The captures' hook runs travel in `runs` (their buffer transferred), each capture's timeline
   * slot holding the offset of its own (panels/timeline/run-slab.ts).
   */
  | { id: number, type: 'write', batch: QueuedProfile[], runs?: BatchRuns, statistics: StatisticsBatch, stamp?: StatisticsStamp, missing?: MissingWindow[] }
  | { id: number, type: 'prune', now: number }
  | { id: number, type: 'close' }

export type WriterMessage =
  /** The answer to a request; `count` is the number of stored profiles after it. */
  | {
    type: 'done'
    id: number
    count: number
    written?: number
    rejected?: string[]
    /** Profiles set aside, each proven to be what failed (it cannot be shaped, copied or stored), and why. */
    unshaped?: Array<{ token: string, reason: string }>
    /** The batch (or `retry` of it) was not stored and is to be tried again. */
    error?: string
    /** The store failed (may clear), not the data. */
    fault?: boolean
    /** With `error`: only these tokens are to be tried again, the rest of the batch is settled (written, rejected or set aside). */
    retry?: string[]
    /** With `error`: the statistics-only requests are settled (counted or set aside), not to be tried again. */
    statisticsSettled?: boolean
    /** The statistics-only requests were set aside (the store refused them), and why. */
    statisticsLost?: string
  }
  /** Profiles pruned in the background: their tokens are free again. */
  | { type: 'deleted', tokens: string[], count: number }
  /** Tokens other instances sharing the store have claimed: not to be drawn here. */
  | { type: 'taken', tokens: string[] }
  /** The store is over PROFILER_MAX_BYTES with nothing left that retention may delete, and why; null: it holds the bound again. */
  | { type: 'bound', reason: string | null }
  | { type: 'error', message: string }
  /** What became of the spans sent out so far (the OTLP export), whenever it changes; `first`: a writer (thread) that just started, counting from 0. */
  | { type: 'export', state: ExportState, first?: true }
