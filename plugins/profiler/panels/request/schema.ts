import { Type, type Static } from 'typebox'

/** Headers as the redactor leaves them (a value may be a list). */
const HeadersSchema = Type.Record(Type.String(), Type.Unknown())

/**
 * A body that was not parsed, as the client sent it (redacted): `reason` is the answer's error
 * (why the service refused it), `bytes` its whole size or null when unknown (a chunked body not
 * read to its end), `truncated` when `text` is only its start; `lossy` when bytes that are not
 * UTF-8 were replaced.
 */
const RawBodySchema = Type.Object({
  text: Type.String(),
  bytes: Type.Union([Type.Integer(), Type.Null()]),
  truncated: Type.Boolean(),
  reason: Type.String(),
  lossy: Type.Optional(Type.Literal(true))
}, { additionalProperties: false })

const ResponseSchema = Type.Object({
  statusCode: Type.Integer(),
  statusText: Type.String(),
  headers: HeadersSchema,
  /** The JSON answer, redacted; null when it was not JSON or over 64 KiB. */
  body: Type.Unknown()
}, { additionalProperties: false })

/**
 * The trace the request belongs to (issue 39): the OpenTelemetry span it ran in, or the W3C
 * traceparent it arrived with; `parentSpanId` is that span (the profile hangs under it).
 */
const TraceSchema = Type.Object({
  traceId: Type.String({ pattern: '^[0-9a-f]{32}$' }),
  parentSpanId: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  sampled: Type.Boolean(),
  traceState: Type.Union([Type.String(), Type.Null()]),
  source: Type.Union([Type.Literal('opentelemetry'), Type.Literal('traceparent')])
}, { additionalProperties: false })

export const RequestSchema = Type.Object({
  method: Type.String(),
  /** Absolute, as the client addressed it (secrets redacted). */
  url: Type.String(),
  route: Type.Union([Type.String(), Type.Null()]),
  /** The route's parameters, the query and the parsed body as the service read them, redacted. */
  params: Type.Unknown(),
  query: Type.Unknown(),
  /** The parsed body, a truncated-body marker (capture/body-preview.ts), or null. */
  body: Type.Unknown(),
  /** Absent when every byte sent was parsed (or none was sent). */
  rawBody: Type.Optional(RawBodySchema),
  requestHeaders: HeadersSchema,
  response: ResponseSchema,
  /** Absent when the request carried no trace (and in profiles stored before issue 39). */
  trace: Type.Optional(TraceSchema)
}, { additionalProperties: false })

export type RequestData = Static<typeof RequestSchema>
export type RawBody = Static<typeof RawBodySchema>

/** What the store keeps: the row holds the method, URL, route and status. */
export type StoredRequest = Omit<RequestData, 'method' | 'url' | 'route' | 'response'> & {
  response: Omit<RequestData['response'], 'statusCode' | 'statusText'>
}
