// HAR 1.2 export (http://www.softwareishard.com/blog/har-12-spec/) of stored profiles. Pure: it
// reads the stored, already redacted panels, so nothing redacted can come back in clear.
import type { StoredProfile } from '../profile.js'
import { bodyText, formFields, isFormBody, type CurlSource } from './curl.js'

interface NameValue { name: string, value: string }

interface RequestPanel extends CurlSource {
  response: { statusCode: number, statusText: string, headers: Record<string, unknown>, body: unknown }
}

interface PerformancePanel { totalMs: number, beforeHandlerMs: number, handlerMs: number | null, sendingMs: number }

/** Fastify here speaks HTTP/1.1 (the profiler does not record the version of each request). */
const HTTP_VERSION = 'HTTP/1.1'
const TIMINGS_COMMENT = 'Measured by the server: wait = before the handler + in the handler, receive = sending the response; ' +
  'blocked, dns, connect and send are not seen by the server.'

const round = (ms: number): number => Math.round(ms * 1000) / 1000

/**
 * Request headers the transport sets: the stored Content-Length is the original body's, not the
 * length of `postData.text` (redacted or encoded again), and the URL carries the host. A replay
 * (browsers, httpsnippet, HAR replayers) computes them again.
 */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'])

function nameValues (headers: Record<string, unknown>, skipped: Set<string> = new Set()): NameValue[] {
  const list: NameValue[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || value === null || skipped.has(name.toLowerCase())) continue
    for (const item of Array.isArray(value) ? value : [value]) list.push({ name, value: typeof item === 'string' ? item : JSON.stringify(item) })
  }
  return list
}

function header (headers: Record<string, unknown>, name: string): string | undefined {
  const value = headers[name]
  return value === undefined || value === null ? undefined : String(value)
}

function queryString (url: string): NameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
  } catch {
    return []
  }
}

/**
 * The request body's size: the exported text's; for a truncated preview, the size as sent; with no
 * stored body, the declared length of a body sent but not kept, else 0 (the recorder stores every
 * body it read, an empty chunked one as none).
 */
function requestBodySize (panel: RequestPanel, body: ReturnType<typeof bodyText>): number {
  if (body !== null) {
    const bytes = (panel.body as { bytes?: unknown } | null)?.bytes
    return body.truncated && typeof bytes === 'number' ? bytes : Buffer.byteLength(body.text)
  }
  const length = Number(header(panel.requestHeaders, 'content-length'))
  return Number.isSafeInteger(length) && length >= 0 ? length : 0
}

function harRequest (panel: RequestPanel) {
  const body = bodyText(panel)
  const mimeType = header(panel.requestHeaders, 'content-type') ?? 'application/json'
  const truncated = body?.truncated === true ? { comment: 'The body was over 64 KiB: only the stored preview is given.' } : {}
  // Form fields as params beside the text, as browsers export them (httpsnippet reads params).
  const params = body !== null && !body.truncated && isFormBody(panel) ? { params: formFields(panel.body) } : {}
  return {
    method: panel.method,
    url: panel.url,
    httpVersion: HTTP_VERSION,
    cookies: [],
    headers: nameValues(panel.requestHeaders, TRANSPORT_HEADERS),
    queryString: queryString(panel.url),
    ...(body === null ? {} : { postData: { mimeType, ...params, text: body.text, ...truncated } }),
    headersSize: -1,
    bodySize: requestBodySize(panel, body)
  }
}

function harResponse (panel: RequestPanel) {
  const { response } = panel
  // A HEAD answer has no body (its Content-Length is the GET's).
  const head = panel.method.toUpperCase() === 'HEAD'
  const text = head || response.body === null || response.body === undefined ? undefined : JSON.stringify(response.body)
  // Compressed or chunked answers have no Content-Length: their size is unknown (-1).
  const length = head ? 0 : Number(header(response.headers, 'content-length'))
  const size = Number.isInteger(length) && length >= 0 ? length : text === undefined ? 0 : Buffer.byteLength(text)
  return {
    status: response.statusCode,
    statusText: response.statusText,
    httpVersion: HTTP_VERSION,
    cookies: [],
    headers: nameValues(response.headers),
    content: {
      size,
      mimeType: header(response.headers, 'content-type') ?? '',
      ...(text === undefined ? { comment: 'Not kept by the profiler (not JSON, or over 64 KiB).' } : { text })
    },
    redirectURL: header(response.headers, 'location') ?? '',
    headersSize: -1,
    bodySize: Number.isInteger(length) && length >= 0 ? length : -1
  }
}

/** One profile as one HAR entry; the profiler's own fields are `_`-prefixed, as HAR allows. */
function harEntry (profile: StoredProfile) {
  const request = profile.panels.request as RequestPanel
  const performance = profile.panels.performance as PerformancePanel | undefined
  const total = performance?.totalMs ?? profile.durationMs
  const receive = round(performance?.sendingMs ?? 0)
  const wait = round(Math.max(0, total - receive))
  return {
    startedDateTime: profile.time,
    time: round(wait + receive),
    request: harRequest(request),
    response: harResponse(request),
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait, receive, ssl: -1, comment: TIMINGS_COMMENT },
    _token: profile.token,
    _route: profile.route,
    _phases: performance === undefined
      ? null
      : { beforeHandlerMs: performance.beforeHandlerMs, handlerMs: performance.handlerMs, sendingMs: performance.sendingMs }
  }
}

/** A HAR document holding these profiles, oldest first (as a browser records them). */
export function harDocument (profiles: StoredProfile[], version: string) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'Profiled API profiler', version },
      entries: profiles.map(harEntry).sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime))
    }
  }
}
