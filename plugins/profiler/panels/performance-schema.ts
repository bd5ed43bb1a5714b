// The performance panel's data (performance.ts), declared apart from its code: the profiler's threads
// run the code and would load TypeBox with the schema (panel-schemas.ts).
import { Type, type Static } from 'typebox'

export const PerformanceSchema = Type.Object({
  totalMs: Type.Number(),
  beforeHandlerMs: Type.Number(),
  /** Null when no handler ran (routing failures, body errors). */
  handlerMs: Type.Union([Type.Number(), Type.Null()]),
  sendingMs: Type.Number(),
  heapUsedBytes: Type.Integer(),
  /** Profiles the store could not keep since the process started. */
  droppedProfiles: Type.Integer()
}, { additionalProperties: false })
export type PerformanceData = Static<typeof PerformanceSchema>
