import type { Collector } from './collector.js'

/** Routing: the matched route and method, or what the router tried when nothing matched. */
export const routerCollector: Collector = {
  name: 'router',
  label: 'Routing',
  collect ({ request, redactor }) {
    const failure = request.routingFailure
    if (failure !== null || request.is404) {
      return { matched: null, failure: redactor.fields(failure) }
    }
    const method = request.routeOptions.method
    return {
      matched: { route: request.routeOptions.url ?? null, method: Array.isArray(method) ? method.join(', ') : method },
      failure: null
    }
  }
}
