import type { Collector } from './collector.js'

/** Routing: the matched route and method, or what the router tried when nothing matched. */
export const routerCollector: Collector = {
  name: 'router',
  label: 'Routing',
  collect ({ capture, redactor }) {
    if (capture.matched === null) return { matched: null, failure: redactor.fields(capture.routingFailure) }
    return { matched: capture.matched, failure: null }
  }
}
