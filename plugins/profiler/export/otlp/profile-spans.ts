// A kept profile as one trace (issue 39, "Send profiles out as traces"), built in the writer thread
// from the panels as collected (redacted already, as stored): a SERVER span for the request, an
// INTERNAL span per timed hook run and the handler (named as @fastify/otel names them), a CLIENT
// span per statement, log lines at warn and above as events, the error as an `exception` event.
// Attribute names are the stable semantic conventions' (HTTP and database spans, v1.44); the
// profile's token and link go under `profiler.*` (no convention exists for them).
import { randomFillSync } from 'node:crypto'
import { BoundedMemo } from '../../../../lib/bounded-memo.js'
import { parseUrl } from '../../../../lib/parse-url.js'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../profile.js'
import type { TimelineItem } from '../../panels/timeline/schema.js'
import type { DbData, DbStatement } from '../../panels/db/schema.js'
import type { RequestData } from '../../panels/request/schema.js'

export type AttributeValue = string | number | boolean
export type Attributes = Array<[key: string, value: AttributeValue]>

/** OTLP's Span.SpanKind. */
const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const

interface SpanEvent {
  /** ns after the profile's start. */
  atNs: number
  name: string
  attributes: Attributes
}

export interface ExportSpan {
  /** Where the span's id lies in its trace's ids (a byte offset; 8 bytes). */
  spanId: number
  /** Where its parent's id lies in the trace's ids; null: a root without a remote parent. */
  parentSpanId: number | null
  name: string
  kind: number
  /** ns after the profile's start (the request's). */
  startNs: number
  endNs: number
  attributes: Attributes
  events: readonly SpanEvent[]
  /** Set for errors only (an ERROR status with its message); OTLP leaves the others unset. */
  error: string | null
}

export interface ExportTrace {
  /** The trace's ids in one buffer: its trace id (the first 16 bytes), then the spans' ids (8 bytes each). */
  ids: Buffer
  /** The W3C tracestate the request arrived with ('' when none): the root span (the first) carries it on. */
  traceState: string
  /** The request's start, epoch ms (whole: the profile's id holds it); the spans' times count from it. */
  startMs: number
  spans: ExportSpan[]
}

interface LogLine { offsetMs: number, level: string, message: string }
interface ExceptionData { name: string, message: string, chain: Array<{ name: string, message: string, stack?: string }> }

/** The panels the export reads, as collected (shape.ts); any of them may be missing. */
export interface ExportedPanels {
  request?: RequestData
  db?: DbData
  logs?: { lines: LogLine[] }
  exception?: ExceptionData | null
}

const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'QUERY', 'TRACE'])
const EXPORTED_LOG_LEVELS = new Set(['warn', 'error', 'fatal'])
const DB_SYSTEMS = { sqlite: 'sqlite', postgres: 'postgresql' } as const
export const TRACE_ID_BYTES = 16
export const SPAN_ID_BYTES = 8

function ns (ms: number): number {
  return Math.round(ms * 1e6)
}

/**
 * Random bytes are drawn 64 KiB at a time and handed out in slices: a randomFillSync a profile took
 * about 15 µs, a third of making and encoding its spans (hot loop over 600 real profiles).
 */
const RANDOM_POOL_BYTES = 65_536
let randomPool = Buffer.alloc(0)
let randomPoolAt = 0

function randomSlice (bytes: number): Buffer {
  if (bytes > RANDOM_POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(bytes))
  if (randomPoolAt + bytes > randomPool.length) {
    randomPool = randomFillSync(Buffer.allocUnsafe(RANDOM_POOL_BYTES))
    randomPoolAt = 0
  }
  randomPoolAt += bytes
  return randomPool.subarray(randomPoolAt - bytes, randomPoolAt)
}

/**
 * A trace's ids, in one slice of random bytes (no buffer per id): its trace id, then a slot of 8 bytes
 * per span id. Random ids are made valid (not all zero); the request's own are written in.
 */
class Ids {
  readonly bytes: Buffer
  constructor (slots: number) {
    this.bytes = randomSlice(TRACE_ID_BYTES + SPAN_ID_BYTES * slots)
  }

  /** The trace id: the request's (hex), or the random one. */
  trace (hex: string | undefined): void {
    if (hex === undefined) this.nonZero(0)
    else this.bytes.write(hex, 0, TRACE_ID_BYTES, 'hex')
  }

  /** Where slot `index`'s random span id lies. */
  span (index: number): number {
    const at = TRACE_ID_BYTES + index * SPAN_ID_BYTES
    this.nonZero(at)
    return at
  }

  /** Where slot `index` lies, holding the span id given (hex). */
  given (index: number, hex: string): number {
    const at = TRACE_ID_BYTES + index * SPAN_ID_BYTES
    this.bytes.write(hex, at, SPAN_ID_BYTES, 'hex')
    return at
  }

  /** An all-zero id is invalid: one bit set makes sure. */
  private nonZero (at: number): void {
    this.bytes[at] = (this.bytes[at] as number) | 1
  }
}

function frozen (attributes: Attributes): Attributes {
  Object.freeze(attributes)
  return attributes
}

/**
 * @fastify/otel's span name and attributes for a hook run or the handler. The attributes are frozen:
 * shared by every span of the site, and encoded once (trace-encoding.ts).
 */
function hookSpanOf (item: TimelineItem): HookSpan {
  const callback = item.name === '' ? 'anonymous' : item.name
  const named = item.name === '' ? (item.plugin === '' ? 'anonymous' : item.plugin) : item.name
  if (item.kind === 'handler') {
    return { name: `handler - ${named}`, attributes: frozen([['hook.name', `${item.plugin} - route-handler`], ['fastify.type', 'request-handler'], ['hook.callback.name', callback]]) }
  }
  const route = item.plugin === 'route'
  return {
    name: `${item.type} - ${named}`,
    attributes: frozen([
      ['hook.name', route ? `route -> ${item.type}` : `${item.plugin} - ${item.type}`],
      ['fastify.type', route ? 'route-hook' : 'hook'],
      ['hook.callback.name', callback]
    ])
  }
}

interface HookSpan { readonly name: string, readonly attributes: Attributes }

/** Distinct hook sites remembered at most (a process registers a few dozen). */
const MAX_HOOK_SITES = 1000
/** The name and attributes of each hook site seen, by plugin, type, name and kind: made once, shared by every span of that site. */
const hookSpans = new Map<string, Map<string, Map<string, Map<string, HookSpan>>>>()
let hookSites = 0

function hookSpan (item: TimelineItem): HookSpan {
  const byType = hookSpans.get(item.plugin) ?? new Map<string, Map<string, Map<string, HookSpan>>>()
  const byName = byType.get(item.type) ?? new Map<string, Map<string, HookSpan>>()
  const byKind = byName.get(item.name) ?? new Map<string, HookSpan>()
  let made = byKind.get(item.kind)
  if (made !== undefined) return made
  made = hookSpanOf(item)
  if (hookSites < MAX_HOOK_SITES) {
    hookSites++
    byKind.set(item.kind, made)
    byName.set(item.name, byKind)
    byType.set(item.type, byName)
    hookSpans.set(item.plugin, byType)
  }
  return made
}

/** A span's events until it has one (most have none): shared and frozen, so replaced by a span's own array at its first event. */
const NO_EVENTS: readonly SpanEvent[] = Object.freeze([])

function addEvent (span: ExportSpan, event: SpanEvent): void {
  if (span.events === NO_EVENTS) span.events = [event]
  else (span.events as SpanEvent[]).push(event)
}

function header (headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = headers?.[name]
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined
}

/** What the SERVER span takes of the request's URL. */
interface UrlParts { scheme: string, path: string, query: string | null, host: string, port: number | null, origin: string }

/** A URL's parts by its text (redacted, as stored): the same URLs come back profile after profile; parsed once each. */
const urlParts = new BoundedMemo<UrlParts | null>({ entries: 2000, chars: 1024 * 1024, maxKeyChars: 2048 }, parts => parts === null ? 0 : parts.path.length + (parts.query?.length ?? 0) + parts.host.length + parts.origin.length)

function partsOf (text: string): UrlParts | null {
  const url = parseUrl(text)
  if (url === null) return null
  return { scheme: url.protocol.slice(0, -1), path: url.pathname, query: url.search.length > 1 ? url.search.slice(1) : null, host: url.hostname, port: url.port === '' ? null : Number(url.port), origin: url.origin }
}

/** The SERVER span's attributes (HTTP server span, stable): from the row's values and the request panel, redacted as stored. */
function serverAttributes (record: ProfileRecord, url: UrlParts | null, request: RequestData | undefined): Attributes {
  const method = record.method.toUpperCase()
  const known = KNOWN_METHODS.has(method)
  const attributes: Attributes = [['http.request.method', known ? method : '_OTHER']]
  if (!known) attributes.push(['http.request.method_original', record.method])
  if (url !== null) {
    attributes.push(['url.scheme', url.scheme], ['url.path', url.path])
    if (url.query !== null) attributes.push(['url.query', url.query])
    attributes.push(['server.address', url.host])
    if (url.port !== null) attributes.push(['server.port', url.port])
  }
  if (record.route !== null) attributes.push(['http.route', record.route])
  attributes.push(['http.response.status_code', record.statusCode])
  if (record.statusCode >= 500) attributes.push(['error.type', String(record.statusCode)])
  if (record.ip !== '') attributes.push(['client.address', record.ip])
  const agent = header(request?.requestHeaders, 'user-agent')
  if (agent !== undefined) attributes.push(['user_agent.original', agent])
  attributes.push(['profiler.token', record.token])
  if (url !== null) attributes.push(['profiler.url', `${url.origin}/_profiler/${record.token}`])
  return attributes
}

function paramText (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
}

/** A statement's CLIENT span attributes (database client span, stable): the SQL as prepared, its parameters apart. */
function statementAttributes (statement: DbStatement, system: string | null, operation: boolean): Attributes {
  const attributes: Attributes = []
  if (system !== null) attributes.push(['db.system.name', system])
  attributes.push(['db.query.text', statement.sql])
  if (operation) attributes.push(['db.operation.name', statement.kind])
  const params = statement.params
  if (Array.isArray(params)) params.forEach((value, index) => { attributes.push([`db.query.parameter.${index}`, paramText(value)]) })
  else for (const [name, value] of Object.entries(params)) attributes.push([`db.query.parameter.${name}`, paramText(value)])
  if (statement.rows !== null) attributes.push(['db.response.returned_rows', statement.rows])
  if (statement.error !== null) attributes.push(['error.type', '_OTHER'])
  return attributes
}

/** The innermost hook or handler span running at `atNs` (the root when none): where a statement or a log line hangs. */
function enclosing (spans: ExportSpan[], hookCount: number, atNs: number): ExportSpan {
  let found = spans[0] as ExportSpan
  for (let index = 1; index <= hookCount; index++) {
    const span = spans[index] as ExportSpan
    if (span.startNs <= atNs && atNs <= span.endNs) found = span
  }
  return found
}

/** The trace of one kept profile, with its timeline's hook and handler items (in the timeline's order; no statements: those are the db panel's). */
export function profileTrace (record: ProfileRecord, panels: ExportedPanels, hooks: readonly TimelineItem[]): ExportTrace {
  const trace = panels.request?.trace
  const items = hooks
  const hookCount = items.length
  const statements = panels.db?.statements ?? []
  const spanCount = 1 + hookCount + statements.length
  // One more slot for the remote parent's id, when the request came with one.
  const ids = new Ids(spanCount + (trace === undefined ? 0 : 1))
  const url = urlParts.get(record.url, partsOf)
  const endNs = ns(record.durationMs)
  const exception = panels.exception ?? null
  const root: ExportSpan = {
    spanId: ids.span(0),
    parentSpanId: trace === undefined ? null : ids.given(spanCount, trace.parentSpanId),
    name: record.route === null ? (KNOWN_METHODS.has(record.method.toUpperCase()) ? record.method.toUpperCase() : 'HTTP') : `${record.method.toUpperCase()} ${record.route}`,
    kind: SPAN_KIND.server,
    startNs: 0,
    endNs,
    attributes: serverAttributes(record, url, panels.request),
    events: NO_EVENTS,
    // Server spans: an error status for 5xx only (4xx are the client's).
    error: record.statusCode >= 500 ? (exception?.message ?? `HTTP ${record.statusCode}`) : null
  }
  const spans: ExportSpan[] = [root]
  for (const item of items) {
    const { name, attributes } = hookSpan(item)
    const startNs = ns(item.startMs)
    spans.push({ spanId: ids.span(spans.length), parentSpanId: root.spanId, name, kind: SPAN_KIND.internal, startNs, endNs: startNs + ns(item.durationMs), attributes, events: NO_EVENTS, error: null })
  }
  const system = panels.db?.engine == null ? null : DB_SYSTEMS[panels.db.engine]
  for (const statement of statements) {
    const startNs = ns(statement.startMs)
    const parent = enclosing(spans, hookCount, startNs)
    // A statement's kind names its operation when it is a SQL keyword (SELECT, INSERT...).
    const operation = /^[A-Z]+$/.test(statement.kind)
    spans.push({
      spanId: ids.span(spans.length),
      parentSpanId: parent.spanId,
      name: operation ? statement.kind : (system ?? 'database'),
      kind: SPAN_KIND.client,
      startNs,
      endNs: startNs + ns(statement.durationMs),
      attributes: statementAttributes(statement, system, operation),
      events: NO_EVENTS,
      error: statement.error
    })
  }
  for (const line of panels.logs?.lines ?? []) {
    if (!EXPORTED_LOG_LEVELS.has(line.level)) continue
    const atNs = ns(line.offsetMs)
    addEvent(enclosing(spans, hookCount, atNs), { atNs, name: 'log', attributes: [['log.severity', line.level], ['log.message', line.message]] })
  }
  if (exception !== null) {
    const attributes: Attributes = [['exception.type', exception.name], ['exception.message', exception.message]]
    const stack = exception.chain[0]?.stack
    if (stack !== undefined) attributes.push(['exception.stacktrace', stack])
    addEvent(root, { atNs: endNs, name: 'exception', attributes })
  }
  ids.trace(trace?.traceId)
  return { ids: ids.bytes, traceState: trace?.traceState ?? '', startMs: Math.floor(record.id / ID_SLOTS_PER_MS), spans }
}
