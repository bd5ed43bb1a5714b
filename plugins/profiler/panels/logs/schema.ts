// The logs panel's data (index.ts), declared apart from its code: the profiler's threads run the
// code and would load TypeBox with the schema (panels/panel-schemas.ts).
import { Type, type Static } from 'typebox'

const LineSchema = Type.Object({
  /** Milliseconds since the request began. */
  offsetMs: Type.Number(),
  level: Type.Union([Type.Literal('trace'), Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('fatal')]),
  /** The message, its %s/%d/%j placeholders filled in, redacted; empty when the call had none. */
  message: Type.String(),
  /** The call's own fields (`request.log.info({ code }, ...)`, Fastify's `req`, `res`, `err`), redacted; null: none. */
  fields: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])
}, { additionalProperties: false })

export const LogsSchema = Type.Object({
  /** The request's first lines at PROFILER_LOG_LEVEL and above, in order (100 and 16 KiB at most). */
  lines: Type.Array(LineSchema),
  /** The lines after those: logged, not kept. */
  omitted: Type.Integer(),
  /** true: the sample (PROFILER_SAMPLE) left the request out and a rule kept it: only its warnings and errors were captured. */
  sampledOut: Type.Boolean()
}, { additionalProperties: false })
export type LogsData = Static<typeof LogsSchema>
export type LogLine = Static<typeof LineSchema>
