import { STATUS_CODES } from 'node:http'
import { redactBodyText } from './redact-body-text.js'
import type { Redactor } from '../../../../lib/redact.js'
import { redactedBody } from '../../capture/body-preview.js'
import type { RequestCapture } from '../../capture/capture.js'
import { traceOf } from '../../capture/profile-trace.js'
import type { CollectContext } from '../panel.js'
import type { RawBody, RequestData } from './schema.js'

/**
 * The profiler's own response headers: the token is the profile's name, shown in the listing
 * anyway, not a credential (the secret-name rule would otherwise redact "token").
 */
const PROFILER_HEADERS: ReadonlySet<string> = new Set(['x-debug-token', 'x-debug-token-link'])

/** A body that was not parsed, as the client sent it (redacted), or nothing. */
function rawBody ({ unparsedBody, bodyBytes, requestHeaders, error }: RequestCapture, redactor: Redactor): { rawBody?: RawBody } {
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
export function collectRequest ({ capture, url, responseBody, redactor }: CollectContext): RequestData {
  const statusCode = capture.statusCode
  const trace = traceOf(capture)
  return {
    method: capture.method,
    url,
    route: capture.route,
    params: redactor.fields(capture.params),
    query: redactor.fields(capture.query),
    body: capture.shapedBody !== undefined ? capture.shapedBody : redactedBody(capture.body, capture.bodyBytes, redactor),
    ...rawBody(capture, redactor),
    requestHeaders: redactor.headers(capture.requestHeaders),
    response: {
      statusCode,
      statusText: STATUS_CODES[statusCode] ?? '',
      headers: redactor.headers(capture.responseHeaders, PROFILER_HEADERS),
      body: responseBody === undefined ? null : redactor.parsedJson(responseBody)
    },
    ...(trace === null ? {} : { trace })
  }
}
