// The profiler's JSON answers, one schema each; the types the store and the pages use come from
// them. Keys are camelCase, like the business API (docs/profiler.md, "JSON twins").
import { Type, type Static, type TInteger, type TNumber } from 'typebox'
import { ROW_COUNTS, type Counts, type RowCountField } from './row-counts.js'

/** The listing's count properties (row-counts.ts): schema by summary key. */
const SUMMARY_COUNT_SCHEMAS = Object.fromEntries(Object.values(ROW_COUNTS).map(count => [count.summary, count.json === 'integer' ? Type.Integer() : Type.Number()])) as
  { [K in RowCountField as Counts[K]['summary']]: Counts[K]['json'] extends 'integer' ? TInteger : TNumber }

/** One row of the search listing. */
const ProfileSummarySchema = Type.Object({
  token: Type.String(),
  ip: Type.String(),
  method: Type.String(),
  url: Type.String(),
  status: Type.Integer(),
  time: Type.String(),
  durationMs: Type.Number(),
  /** The deployment that recorded it (PROFILER_DEPLOYMENT). */
  deployment: Type.String(),
  /** The counts the row holds (row-counts.ts): statements and their ms (the db panel), warn and error log lines (the logs panel). */
  ...SUMMARY_COUNT_SCHEMAS,
  /** The W3C trace id of the trace the request belongs to (its OpenTelemetry span or traceparent); null: none. */
  traceId: Type.Union([Type.String(), Type.Null()])
})
export type ProfileSummary = Static<typeof ProfileSummarySchema>

/**
 * What the operator sees of the store: taking writes, failing since when and why, or over
 * PROFILER_MAX_BYTES since when and why (retention has nothing left it may delete: docs/profiler.md, Retention).
 */
/**
 * The OTLP export of kept profiles (PROFILER_OTLP_ENDPOINT), since the process started: spans
 * exported, dropped (the collector refused them, stayed down past the retries, or the export's
 * queue was full) and waiting; `state` ok, retrying (a batch waits to be tried again) or failing
 * (spans were dropped since the last batch the collector took), since when and why.
 */
const ExportStateSchema = Type.Object({
  url: Type.String(),
  protocol: Type.String(),
  state: Type.Union([Type.Literal('ok'), Type.Literal('retrying'), Type.Literal('failing')]),
  since: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  exportedSpans: Type.Integer(),
  droppedSpans: Type.Integer(),
  queuedSpans: Type.Integer()
})
export type ExportState = Static<typeof ExportStateSchema>

const StoreHealthSchema = Type.Object({
  state: Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('over-bound')]),
  /** ISO time the current fault (or the state over the bound) began, or null. */
  since: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  /** Profiles that could not be stored since the process started. */
  dropped: Type.Integer(),
  /** Profiles waiting in memory to be written. */
  queued: Type.Integer(),
  /** Requests not kept as profiles that could not be counted in the route statistics either, since the process started. */
  statisticsDropped: Type.Integer(),
  /** Present when kept profiles are sent out as traces. */
  export: Type.Optional(ExportStateSchema)
})
export type StoreHealthSnapshot = Static<typeof StoreHealthSchema>

/**
 * What this instance keeps as profiles (PROFILER_SAMPLE, PROFILER_KEEP_SLOWER_THAN), as data and as
 * the pages say it. The running service's configuration: the CLI and MCP, which read the store, leave it out.
 */
export const KeptSchema = Type.Object({
  /** The share of requests kept at random, 0 to 1. */
  sample: Type.Number(),
  /** Requests slower than this (ms) are kept whatever the sample. */
  keepSlowerThanMs: Type.Number(),
  /** "every request", or "10% of requests, and every error and slow request (over 1.00 s)". */
  sentence: Type.String()
})
export type Kept = Static<typeof KeptSchema>

/** The listing's JSON: the matching profiles, newest first, the store's health and what is kept. */
export const ListingResponseSchema = Type.Object({
  results: Type.Array(ProfileSummarySchema),
  store: StoreHealthSchema,
  kept: KeptSchema
})

/** A stored profile with its panels (panel name -> the collector's data). */
const StoredProfileSchema = Type.Object({
  ...ProfileSummarySchema.properties,
  parentToken: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  route: Type.Union([Type.String(), Type.Null()]),
  panels: Type.Record(Type.String(), Type.Unknown())
})
export type StoredProfile = Static<typeof StoredProfileSchema>

const { panels, ...storedFields } = StoredProfileSchema.properties
/**
 * A profile's JSON: the stored profile, the status text and the panel shown (`panels` holds only it
 * when one was asked for), and what this instance keeps.
 */
/** `traceUrl`: the profile's trace in the tracing UI (PROFILER_TRACE_URL), null without a trace id or a URL. */
export const ProfileResponseSchema = Type.Object({ ...storedFields, statusText: Type.String(), panel: Type.String(), panels, traceUrl: Type.Union([Type.String(), Type.Null()]), kept: KeptSchema })
