// The exception panel's data (exception.ts), declared apart from its code: the profiler's threads
// run the code and would load TypeBox with the schema (panel-schemas.ts).
import { Type, type Static } from 'typebox'

const ChainEntrySchema = Type.Object({
  name: Type.String(),
  message: Type.String(),
  /** For 5xx outside production only. */
  stack: Type.Optional(Type.String())
}, { additionalProperties: false })

/** Null when the request raised no error. */
export const ExceptionSchema = Type.Union([
  Type.Object({
    name: Type.String(),
    statusCode: Type.Integer(),
    statusText: Type.String(),
    message: Type.String(),
    /** The error and each of its causes, outermost first. */
    chain: Type.Array(ChainEntrySchema)
  }, { additionalProperties: false }),
  Type.Null()
])
export type ExceptionData = Static<typeof ExceptionSchema>
