import { STATUS_CODES } from 'node:http'
import type { Collector } from './collector.js'

/** Request bodies larger than this (as JSON) are kept as a truncated preview. */
export const MAX_BODY_BYTES = 64 * 1024

/**
 * A body small enough as is, or a marked, truncated preview of its JSON text; `bytes` is the body's
 * size as the client sent it (not of the redacted copy, which the scan limits may have shortened).
 */
function keepBody (body: unknown, sentBytes: number): unknown {
  if (body === undefined) return null
  const text = JSON.stringify(body)
  if (text === undefined || Buffer.byteLength(text) <= MAX_BODY_BYTES) return body
  return { truncated: true, bytes: sentBytes, preview: text.slice(0, MAX_BODY_BYTES) }
}

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
      body: keepBody(redactor.fields(capture.body), capture.bodyBytes),
      requestHeaders: redactor.headers(capture.requestHeaders),
      response: {
        statusCode,
        statusText: STATUS_CODES[statusCode] ?? '',
        headers: redactor.headers(capture.responseHeaders),
        body: responseBody === undefined ? null : redactor.fields(responseBody)
      }
    }
  }
}
