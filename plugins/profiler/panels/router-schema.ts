// The router panel's data (router.ts), declared apart from its code: the profiler's threads run the
// code and would load TypeBox with the schema (panel-schemas.ts).
import { Type, type Static } from 'typebox'

export const MatchedSchema = Type.Object({
  /** The route pattern (null for a profile written before the row held it: see fromStored). */
  route: Type.Union([Type.String(), Type.Null()]),
  method: Type.String()
}, { additionalProperties: false })

/** What the router tried when no route matched (plugins/routing), redacted. */
const FailureSchema = Type.Object({
  outcome: Type.Union([Type.Literal('redirect'), Type.Literal('method-not-allowed'), Type.Literal('not-found')]),
  method: Type.String(),
  path: Type.String(),
  /** The trailing-slash twin tried for GET/HEAD, or null. */
  twinPath: Type.Union([Type.String(), Type.Null()]),
  allowedMethods: Type.Array(Type.String())
}, { additionalProperties: false })

export const RouterSchema = Type.Object({
  matched: Type.Union([MatchedSchema, Type.Null()]),
  /** Null when a route matched, or when the request never reached the router (rejected by Node's parser). */
  failure: Type.Union([FailureSchema, Type.Null()])
}, { additionalProperties: false })
export type RouterData = Static<typeof RouterSchema>
export type Failure = Static<typeof FailureSchema>
