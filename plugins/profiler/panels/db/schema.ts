import { Type, type Static } from 'typebox'

/** A parameter as stored: a value the driver took, redacted; any other kind of value as a description. */
const ParamSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])
export type Param = Static<typeof ParamSchema>

const StatementSchema = Type.Object({
  /** The SQL as prepared. */
  sql: Type.String(),
  /** SELECT, INSERT, UPDATE, ...: the statement's first word, upper case. */
  kind: Type.String(),
  /** Positional (`?`, `$1`) or named (`@code`), redacted by name and by value. */
  params: Type.Union([Type.Array(ParamSchema), Type.Record(Type.String(), ParamSchema)]),
  /** A parameter was redacted, or was not a plain value: no runnable query then. */
  redacted: Type.Boolean(),
  /** Start, in ms after the request started (µs precision). */
  startMs: Type.Number(),
  durationMs: Type.Number(),
  /** Rows returned or changed; null when it failed. */
  rows: Type.Union([Type.Integer(), Type.Null()]),
  /** The driver's message, redacted, when it failed. */
  error: Type.Union([Type.String(), Type.Null()])
}, { additionalProperties: false })
export type DbStatement = Static<typeof StatementSchema>

export const DbSchema = Type.Object({
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres'), Type.Null()]),
  /** Every statement run, the ones beyond the caps included (the profile's row holds it). */
  queryCount: Type.Integer(),
  /** Their total time in ms (the profile's row holds it). */
  queryMs: Type.Number(),
  /** The first 200 statements, 64 KiB of SQL at most, in the order they ran. */
  statements: Type.Array(StatementSchema)
}, { additionalProperties: false })
export type DbData = Static<typeof DbSchema>
export type StoredDb = Omit<DbData, 'queryCount' | 'queryMs'>
