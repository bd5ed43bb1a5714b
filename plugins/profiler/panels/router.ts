import { Type, type Static } from 'typebox'
import type { Panel } from './panel.js'

const MatchedSchema = Type.Object({
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

const RouterSchema = Type.Object({
  matched: Type.Union([MatchedSchema, Type.Null()]),
  /** Null when a route matched, or when the request never reached the router (rejected by Node's parser). */
  failure: Type.Union([FailureSchema, Type.Null()])
}, { additionalProperties: false })
type RouterData = Static<typeof RouterSchema>
type Failure = Static<typeof FailureSchema>
type StoredRouter = Omit<RouterData, 'matched'> & { matched: Omit<Static<typeof MatchedSchema>, 'route'> | null }

/** Routing: the matched route and method, or what the router tried when nothing matched. */
export const routerPanel: Panel<typeof RouterSchema, StoredRouter> = {
  name: 'router',
  label: 'Routing',
  description: 'matched route, or what the router tried and the allowed methods',
  schema: RouterSchema,
  collect ({ capture, redactor }) {
    // Redaction keeps the shape: plugins/routing's failure, its values redacted by name.
    if (capture.matched === null) return { matched: null, failure: redactor.fields(capture.routingFailure) as Failure | null }
    return { matched: capture.matched, failure: null }
  },
  // Stored without the route: the row holds it.
  record ({ capture, redactor }) {
    if (capture.matched === null) return { matched: null, failure: redactor.fields(capture.routingFailure) as Failure | null }
    return { matched: { method: capture.matched.method }, failure: null }
  },
  fromStored (stored, row) {
    if (stored.matched === null) return { ...stored, matched: null }
    return { ...stored, matched: { route: row.route, ...stored.matched } }
  }
}
