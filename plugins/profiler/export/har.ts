// HAR 1.2 export (http://www.softwareishard.com/blog/har-12-spec/) of stored profiles. Pure: it
// reads the stored, already redacted panels, so nothing redacted can come back in clear.
import { multipartParams } from '../panels/request/multipart-parts.js'
import { dbPanel } from '../panels/db/index.js'
import { panelData } from '../panels/panel.js'
import { performancePanel } from '../panels/performance.js'
import { requestPanel, type RequestData } from '../panels/request/index.js'
import type { StoredProfile } from '../profile.js'
import { bodyText, formFields, isFormBody } from '../panels/request/curl.js'
import { roundMs } from '../units.js'

interface NameValue { name: string, value: string }

/** Fastify here speaks HTTP/1.1 (the profiler does not record the version of each request). */
const HTTP_VERSION = 'HTTP/1.1'
const TIMINGS_COMMENT = 'Measured by the server: wait = before the handler + in the handler, receive = sending the response; ' +
  'blocked, dns, connect and send are not seen by the server.'

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
 * The request body's size: the exported text's; for a truncated preview, the size as sent (-1 when
 * unknown: a chunked body not read to its end); with no stored body, the declared length of a body
 * sent but not kept, else 0 (the recorder stores every body it read, an empty chunked one as none).
 */
function requestBodySize (panel: RequestData, body: ReturnType<typeof bodyText>): number {
  if (body !== null) return body.truncated ? body.bytes ?? -1 : Buffer.byteLength(body.text)
  const length = Number(header(panel.requestHeaders, 'content-length'))
  return Number.isSafeInteger(length) && length >= 0 ? length : 0
}

/** What postData's comment says of a body: not parsed (as sent), truncated, not UTF-8. */
function bodyComment (panel: RequestData, body: NonNullable<ReturnType<typeof bodyText>>): object {
  const raw = panel.body === null || panel.body === undefined ? panel.rawBody : undefined
  const notes = [
    ...(raw === undefined ? [] : [`Not parsed by the service (${raw.reason}): the body as sent.`]),
    ...(body.truncated ? ['The body was over 64 KiB: only the stored preview is given.'] : []),
    ...(raw?.lossy === true ? ['Bytes that were not UTF-8 are given as U+FFFD.'] : [])
  ]
  return notes.length === 0 ? {} : { comment: notes.join(' ') }
}

function harRequest (panel: RequestData) {
  const body = bodyText(panel)
  // A body that was not parsed may have come with no type.
  const mimeType = header(panel.requestHeaders, 'content-type') ?? (panel.rawBody === undefined ? 'application/json' : '')
  const comment = body === null ? {} : bodyComment(panel, body)
  // Form fields (and a multipart body's parts) as params beside the text, as browsers export them
  // (httpsnippet reads params, and otherwise loses the form).
  const fields = body === null || body.truncated ? null : isFormBody(panel) ? formFields(panel.body) : multipartParams(body.text, mimeType)
  const params = fields === null ? {} : { params: fields }
  return {
    method: panel.method,
    url: panel.url,
    httpVersion: HTTP_VERSION,
    cookies: [],
    headers: nameValues(panel.requestHeaders, TRANSPORT_HEADERS),
    queryString: queryString(panel.url),
    ...(body === null ? {} : { postData: { mimeType, ...params, text: body.text, ...comment } }),
    headersSize: -1,
    bodySize: requestBodySize(panel, body)
  }
}

function harResponse (panel: RequestData) {
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

/** Every profile the profiler records has a request panel; one written by hand may not. */
export function noRequestPanel (profile: StoredProfile): never {
  throw new Error(`Profile ${profile.token} has no request panel`)
}

/** The statements run on the advisors' database, as stored (parameters redacted); null for a profile without the db panel. */
function harQueries (profile: StoredProfile) {
  const db = panelData(profile, dbPanel)
  if (db === undefined) return null
  return {
    count: db.queryCount,
    totalMs: db.queryMs,
    statements: db.statements.map(({ sql, kind, params, startMs, durationMs, rows, error }) => ({ sql, kind, params, startMs, durationMs, rows, error }))
  }
}

/** One profile as one HAR entry; the profiler's own fields are `_`-prefixed, as HAR allows. */
function harEntry (profile: StoredProfile) {
  const request = panelData(profile, requestPanel) ?? noRequestPanel(profile)
  const performance = panelData(profile, performancePanel)
  const total = performance?.totalMs ?? profile.durationMs
  const receive = roundMs(performance?.sendingMs ?? 0)
  const wait = roundMs(Math.max(0, total - receive))
  return {
    startedDateTime: profile.time,
    time: roundMs(wait + receive),
    request: harRequest(request),
    response: harResponse(request),
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait, receive, ssl: -1, comment: TIMINGS_COMMENT },
    _token: profile.token,
    _route: profile.route,
    _phases: performance === undefined
      ? null
      : { beforeHandlerMs: performance.beforeHandlerMs, handlerMs: performance.handlerMs, sendingMs: performance.sendingMs },
    _queries: harQueries(profile)
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
