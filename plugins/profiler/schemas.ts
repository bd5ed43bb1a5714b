// The profiler's JSON answers, one schema each; the types the store and the pages use come from
// them. Keys are camelCase, like the business API (docs/profiler.md, "JSON twins").
import { Type, type Static } from 'typebox'

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
  /** Statements run on the advisors' database, and their total time in ms (the db panel). */
  queries: Type.Integer(),
  queryMs: Type.Number(),
  /** Log lines at warn, and at error or above, the request wrote (the logs panel). */
  warnings: Type.Integer(),
  errors: Type.Integer()
})
export type ProfileSummary = Static<typeof ProfileSummarySchema>

/** What the operator sees of the store: taking writes, or failing since when and why. */
const StoreHealthSchema = Type.Object({
  state: Type.Union([Type.Literal('ok'), Type.Literal('failing')]),
  /** ISO time the current fault began, or null. */
  since: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  /** Profiles that could not be stored since the process started. */
  dropped: Type.Integer(),
  /** Profiles waiting in memory to be written. */
  queued: Type.Integer()
})
export type StoreHealthSnapshot = Static<typeof StoreHealthSchema>

/** The listing's JSON: the matching profiles, newest first, and the store's health. */
export const ListingResponseSchema = Type.Object({
  results: Type.Array(ProfileSummarySchema),
  store: StoreHealthSchema
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
/** A profile's JSON: the stored profile, the status text and the panel shown (`panels` holds only it when one was asked for). */
export const ProfileResponseSchema = Type.Object({ ...storedFields, statusText: Type.String(), panel: Type.String(), panels })
