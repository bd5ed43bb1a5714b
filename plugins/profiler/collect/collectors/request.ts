import { STATUS_CODES } from 'node:http'
import { storedBody } from '../body-preview.js'
import type { Collector } from './collector.js'

/**
 * The profiler's own response headers: the token is the profile's name, shown in the listing
 * anyway, not a credential (the secret-name rule would otherwise redact "token").
 */
const PROFILER_HEADERS: ReadonlySet<string> = new Set(['x-debug-token', 'x-debug-token-link'])

/** Request / Response: query, body, headers, route and params; response status, headers and JSON body. */
export const requestCollector: Collector = {
  name: 'request',
  label: 'Request / Response',
  collect ({ capture, url, responseBody, redactor }) {
    const statusCode = capture.statusCode
    return {
      method: capture.method,
      url,
      route: capture.route,
      params: redactor.fields(capture.params),
      query: redactor.fields(capture.query),
      body: capture.shapedBody !== undefined ? capture.shapedBody : storedBody(redactor.fields(capture.body), capture.bodyBytes),
      requestHeaders: redactor.headers(capture.requestHeaders),
      response: {
        statusCode,
        statusText: STATUS_CODES[statusCode] ?? '',
        headers: redactor.headers(capture.responseHeaders, PROFILER_HEADERS),
        body: responseBody === undefined ? null : redactor.fields(responseBody)
      }
    }
  }
}
