import { STATUS_CODES } from 'node:http'
import { redactBodyText } from './redact-body-text.js'
import type { Redactor } from '../../../../lib/redact.js'
import { redactedBody } from '../../capture/body-preview.js'
import type { RequestCapture } from '../../capture/capture.js'
import { traceOf } from '../../capture/profile-trace.js'
import type { CollectContext } from '../panel.js'
import type { RawBody, RequestData, StoredRequest } from './schema.js'

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

/** What the request panel holds of the request alone, in its order: params, query, body and headers. */
function requestPart ({ capture, redactor }: CollectContext): Pick<RequestData, 'params' | 'query' | 'body' | 'rawBody' | 'requestHeaders'> {
  return {
    params: redactor.fields(capture.params),
    query: redactor.fields(capture.query),
    body: capture.shapedBody !== undefined ? capture.shapedBody : redactedBody(capture.body, capture.bodyBytes, redactor),
    ...rawBody(capture, redactor),
    requestHeaders: redactor.headers(capture.requestHeaders)
  }
}

/** The response's headers and JSON body, redacted. */
function responsePart ({ capture, responseBody, redactor }: CollectContext): StoredRequest['response'] {
  return { headers: redactor.headers(capture.responseHeaders, PROFILER_HEADERS), body: responseBody === undefined ? null : redactor.parsedJson(responseBody) }
}

/** Request / Response: query, body, headers, route and params; response status, headers and JSON body. */
export function collectRequest (context: CollectContext): RequestData {
  const { capture, url } = context
  const statusCode = capture.statusCode
  const trace = traceOf(capture)
  return {
    method: capture.method,
    url,
    route: capture.route,
    ...requestPart(context),
    response: { statusCode, statusText: STATUS_CODES[statusCode] ?? '', ...responsePart(context) },
    ...(trace === null ? {} : { trace })
  }
}

/** What the store keeps (index.ts's fromStored gives collectRequest's data back): without what the row holds, method, URL, route and status. */
export function recordRequest (context: CollectContext): StoredRequest {
  const trace = traceOf(context.capture)
  return { ...requestPart(context), response: responsePart(context), ...(trace === null ? {} : { trace }) }
}
