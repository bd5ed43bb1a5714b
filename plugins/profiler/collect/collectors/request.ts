import { STATUS_CODES } from 'node:http'
import { redactBodyText } from '../../../../lib/redact-body-text.js'
import type { Redactor } from '../../../../lib/redact.js'
import { storedBody } from '../body-preview.js'
import type { RequestCapture } from '../capture.js'
import type { Collector } from './collector.js'

/**
 * The profiler's own response headers: the token is the profile's name, shown in the listing
 * anyway, not a credential (the secret-name rule would otherwise redact "token").
 */
const PROFILER_HEADERS: ReadonlySet<string> = new Set(['x-debug-token', 'x-debug-token-link'])

/**
 * A body that was not parsed, as the client sent it (redacted): `reason` is the answer's error
 * (why the service refused it), `bytes` its whole size or null when unknown (a chunked body not
 * read to its end), `truncated` when `text` is only its start; `lossy` when bytes that are not
 * UTF-8 were replaced.
 */
function rawBody ({ unparsedBody, bodyBytes, requestHeaders, error }: RequestCapture, redactor: Redactor) {
  if (unparsedBody === undefined) return {}
  const { text, truncated, sizeKnown, lossy } = unparsedBody
  const type = requestHeaders['content-type']
  return {
    rawBody: {
      text: redactBodyText(redactor, text, typeof type === 'string' ? type : '', truncated),
      bytes: sizeKnown ? bodyBytes : null,
      truncated,
      reason: error === null ? 'no parser read it' : redactor.text(error.message),
      ...(lossy ? { lossy } : {})
    }
  }
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
      body: capture.shapedBody !== undefined ? capture.shapedBody : storedBody(redactor.fields(capture.body), capture.bodyBytes),
      ...rawBody(capture, redactor),
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
