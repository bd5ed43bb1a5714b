import { Type, type Static } from 'typebox'
import type { MICROSECOND_RUNS_FORM, RUNS_FORM } from './stored-form-constants.js'

/** A span of the request: a hook's run, the handler, or a statement on the advisors' database. */
const ItemSchema = Type.Object({
  kind: Type.Union([Type.Literal('hook'), Type.Literal('handler'), Type.Literal('statement')]),
  /** A hook's lifecycle name (onRequest, onSend...), "handler", or a statement's kind (SELECT...). */
  type: Type.String(),
  /** The hook's or handler's function name (empty: anonymous), or the statement's SQL (its start, redacted). */
  name: Type.String(),
  /** The plugin that added the hook ("route": the route's own), the handler's route; empty for a statement. */
  plugin: Type.String(),
  /** Start, in ms after the request started (µs precision). */
  startMs: Type.Number(),
  durationMs: Type.Number(),
  /** false: it never said it ended (a hook that replied early without calling done): it ends where the next item began. */
  ended: Type.Boolean()
}, { additionalProperties: false })
export type TimelineItem = Static<typeof ItemSchema>

const PhaseSchema = Type.Object({
  /** The performance panel's phases: before the handler, in the handler, sending. */
  name: Type.Union([Type.Literal('before'), Type.Literal('handler'), Type.Literal('sending')]),
  startMs: Type.Number(),
  durationMs: Type.Number()
}, { additionalProperties: false })

/** A log line, as a tick on the axis. */
const TickSchema = Type.Object({
  offsetMs: Type.Number(),
  /** The level's name as the logs panel gives it (trace ... fatal). */
  level: Type.String(),
  /** The message's start, redacted (the logs panel has it whole). */
  message: Type.String()
}, { additionalProperties: false })

export const TimelineSchema = Type.Object({
  /** The request's duration (the profile's row holds it). */
  totalMs: Type.Number(),
  phases: Type.Array(PhaseSchema),
  /** Hook runs, the handler and statements, by start. */
  items: Type.Array(ItemSchema),
  logs: Type.Array(TickSchema),
  /** false: the sample left the request out and a rule kept it (an error, slow, forced): its hook runs were not timed (docs/profiler.md). */
  hooksTimed: Type.Boolean(),
  /** What ran beyond the captures' caps (200 hook runs, the db and logs panels' caps): counted, not drawn. */
  omitted: Type.Object({ hooks: Type.Integer(), statements: Type.Integer(), logs: Type.Integer() }, { additionalProperties: false })
}, { additionalProperties: false })
export type TimelineData = Static<typeof TimelineSchema>
/**
 * An item as stored: its values in the schema's order, without the keys (a timeline's items are
 * most of a profile's stored bytes: about 60% before, with a key for each value of each item).
 */
export type StoredItem = [kind: TimelineItem['kind'], type: string, name: string, plugin: string, startMs: number, durationMs: number, ended: boolean]
/** The timeline as stored from 27 November 2026 to 29 November 2026: without the duration (the row holds it), its items as StoredItem (or objects, as stored before 27 November). */
type StoredItems = Omit<TimelineData, 'totalMs' | 'items'> & { items: Array<StoredItem | TimelineItem> }

/** A hook site as stored: the hook (or "handler"), the function's name, the plugin. */
export type StoredSite = [hook: string, name: string, plugin: string]

/**
 * The timeline as stored from 29 November 2026: only its own inputs, the rest built when it is read
 * (collect.ts: timelineOf) from the panels that hold it already: the statements (db), the log
 * lines (logs), the phases (performance, with when sending began), the duration and route (the row).
 */
export interface StoredRuns {
  v: typeof RUNS_FORM
  /** The sites the runs name, each once. */
  sites: StoredSite[]
  /** Three numbers a hook run, in the order they began: its site's place in `sites` (-1 - place: it never ended), its start and its duration in ms (as drawn). */
  runs: number[]
  /** When sending began, ms after the request started. */
  sendMs: number
  /** Runs past the cap: counted, not kept. */
  omittedHooks: number
  hooksTimed: boolean
}

/** The first version of StoredSiteRuns (its runs in ms, as StoredRuns'; written until MICROSECOND_RUNS_FORM). */
type ProcessSitesForm = 3

/**
 * The timeline as stored from 29 November 2026 by a writer with per-process panels: StoredRuns
 * without its sites, the runs naming places in the sites its process row holds (PROCESS_SITES);
 * in MICROSECOND_RUNS_FORM, their starts and durations in µs.
 */
export type StoredSiteRuns = Omit<StoredRuns, 'v' | 'sites'> & { v: ProcessSitesForm | typeof MICROSECOND_RUNS_FORM }

/** The timeline in any stored form. */
export type StoredTimeline = StoredSiteRuns | StoredRuns | StoredItems
