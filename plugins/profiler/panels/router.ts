import type { Static } from 'typebox'
import type { Panel } from './panel.js'
import type { Failure, MatchedSchema, RouterData, RouterSchema } from './router-schema.js'

type StoredRouter = Omit<RouterData, 'matched'> & { matched: Omit<Static<typeof MatchedSchema>, 'route'> | null }

/** Routing: the matched route and method, or what the router tried when nothing matched. */
export const routerPanel: Panel<typeof RouterSchema, StoredRouter> = {
  name: 'router',
  label: 'Routing',
  description: 'matched route, or what the router tried and the allowed methods',
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
