// What the spans of a kept profile hold (issue 39, "Send profiles out as traces"), told once for both
// encodings: the JSON one builds span objects from it (profile-spans.ts), the protobuf one writes
// bytes straight from it (protobuf-profile.ts). Read from the panels as collected (redacted already,
// as stored). Attribute names are the stable semantic conventions' (HTTP and database spans, v1.44);
// the profile's token and link go under `profiler.*` (no convention exists for them).
import { parseUrl } from '../../../../lib/parse-url.js'
import type { ProfileRecord } from '../../profile.js'
import { hookItemsOf } from '../../panels/timeline/collect.js'
import type { StoredRuns, StoredSite, StoredSiteRuns, TimelineItem } from '../../panels/timeline/schema.js'
import type { DbData, DbStatement } from '../../panels/db/schema.js'
import type { RequestData } from '../../panels/request/schema.js'

export type AttributeValue = string | number | boolean
export type Attributes = Array<[key: string, value: AttributeValue]>

/** OTLP's Span.SpanKind. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const

/** An attribute's key; `encoded` is its protobuf KeyValue.key field, made once by the protobuf encoding. */
export interface AttributeKey { readonly name: string, encoded: Buffer | null }

function attributeKey (name: string): AttributeKey {
  return { name, encoded: null }
}

/** Where a span's attributes go: a list (JSON), or the span's bytes (protobuf). Values are strings or non-negative integers. */
export interface AttributeSink {
  string: (key: AttributeKey, value: string) => void
  int: (key: AttributeKey, value: number) => void
}

const KEYS = {
  method: attributeKey('http.request.method'),
  methodOriginal: attributeKey('http.request.method_original'),
  scheme: attributeKey('url.scheme'),
  path: attributeKey('url.path'),
  query: attributeKey('url.query'),
  address: attributeKey('server.address'),
  port: attributeKey('server.port'),
  route: attributeKey('http.route'),
  status: attributeKey('http.response.status_code'),
  errorType: attributeKey('error.type'),
  client: attributeKey('client.address'),
  agent: attributeKey('user_agent.original'),
  token: attributeKey('profiler.token'),
  link: attributeKey('profiler.url'),
  dbSystem: attributeKey('db.system.name'),
  queryText: attributeKey('db.query.text'),
  operation: attributeKey('db.operation.name'),
  rows: attributeKey('db.response.returned_rows')
}

export interface SpanEvent {
  /** ns after the profile's start. */
  atNs: number
  name: string
  attributes: Attributes
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

export function ns (ms: number): number {
  return Math.round(ms * 1e6)
}

/** The SERVER span's name: the method and route, as @fastify/otel names it. */
export function serverSpanName (record: ProfileRecord): string {
  const method = record.method.toUpperCase()
  if (record.route === null) return KNOWN_METHODS.has(method) ? method : 'HTTP'
  return `${method} ${record.route}`
}

/** The SERVER span's error status message: 5xx only (4xx are the client's); null: no error. */
export function serverError (record: ProfileRecord, panels: ExportedPanels): string | null {
  return record.statusCode >= 500 ? (panels.exception?.message ?? `HTTP ${record.statusCode}`) : null
}

/** What the SERVER span takes of the request's URL. */
export interface UrlParts { scheme: string, path: string, query: string | null, host: string, port: number | null, origin: string }

export function urlPartsOf (text: string): UrlParts | null {
  const url = parseUrl(text)
  if (url === null) return null
  return { scheme: url.protocol.slice(0, -1), path: url.pathname, query: url.search.length > 1 ? url.search.slice(1) : null, host: url.hostname, port: url.port === '' ? null : Number(url.port), origin: url.origin }
}

/** The bounds of a memo of URLs' parts (the same URLs come back profile after profile). */
export const URL_MEMO_BOUNDS = { entries: 2000, chars: 1024 * 1024, maxKeyChars: 2048 }

export function urlChars (parts: UrlParts | null): number {
  return parts === null ? 0 : parts.path.length + (parts.query?.length ?? 0) + parts.host.length + parts.origin.length
}

/**
 * The SERVER span's attributes (HTTP server span, stable), in three parts: what its method and route
 * give (the same for every request of a route), what its URL gives, and the rest.
 */
export function routeAttributes (record: ProfileRecord, sink: AttributeSink): void {
  const method = record.method.toUpperCase()
  const known = KNOWN_METHODS.has(method)
  sink.string(KEYS.method, known ? method : '_OTHER')
  if (!known) sink.string(KEYS.methodOriginal, record.method)
  if (record.route !== null) sink.string(KEYS.route, record.route)
}

export function urlAttributes (url: UrlParts, sink: AttributeSink): void {
  sink.string(KEYS.scheme, url.scheme)
  sink.string(KEYS.path, url.path)
  if (url.query !== null) sink.string(KEYS.query, url.query)
  sink.string(KEYS.address, url.host)
  if (url.port !== null) sink.int(KEYS.port, url.port)
}

function header (headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = headers?.[name]
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined
}

export function requestAttributes (record: ProfileRecord, url: UrlParts | null, request: RequestData | undefined, sink: AttributeSink): void {
  sink.int(KEYS.status, record.statusCode)
  if (record.statusCode >= 500) sink.string(KEYS.errorType, String(record.statusCode))
  if (record.ip !== '') sink.string(KEYS.client, record.ip)
  const agent = header(request?.requestHeaders, 'user-agent')
  if (agent !== undefined) sink.string(KEYS.agent, agent)
  sink.string(KEYS.token, record.token)
  if (url !== null) sink.string(KEYS.link, `${url.origin}/_profiler/${record.token}`)
}

/** The database system of a profile's statements (db.system.name); null when its engine is unknown. */
export function dbSystemOf (panels: ExportedPanels): string | null {
  return panels.db?.engine == null ? null : DB_SYSTEMS[panels.db.engine]
}

/** A statement's kind names its operation when it is a SQL keyword (SELECT, INSERT...). */
function isOperation (kind: string): boolean {
  return /^[A-Z]+$/.test(kind)
}

export function statementSpanName (statement: DbStatement, system: string | null): string {
  return isOperation(statement.kind) ? statement.kind : (system ?? 'database')
}

/** A statement's CLIENT span attributes (database client span, stable) that its SQL gives: the same each time it runs. */
export function sqlAttributes (statement: DbStatement, system: string | null, sink: AttributeSink): void {
  if (system !== null) sink.string(KEYS.dbSystem, system)
  sink.string(KEYS.queryText, statement.sql)
  if (isOperation(statement.kind)) sink.string(KEYS.operation, statement.kind)
}

/** Parameter keys by position (db.query.parameter.<index>), made once each. */
const indexKeys: AttributeKey[] = []
/** Parameter keys by name, the first 1,000 names made once. */
const namedKeys = new Map<string, AttributeKey>()
const MAX_NAMED_KEYS = 1000

function indexKey (index: number): AttributeKey {
  let key = indexKeys[index]
  if (key === undefined) {
    key = attributeKey(`db.query.parameter.${index}`)
    if (index < 1000) indexKeys[index] = key
  }
  return key
}

function namedKey (name: string): AttributeKey {
  let key = namedKeys.get(name)
  if (key === undefined) {
    key = attributeKey(`db.query.parameter.${name}`)
    if (namedKeys.size < MAX_NAMED_KEYS) namedKeys.set(name, key)
  }
  return key
}

function paramText (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
}

/** The rest of a statement's attributes: its parameters (apart from the SQL), rows, error. */
export function runAttributes (statement: DbStatement, sink: AttributeSink): void {
  const params = statement.params
  if (Array.isArray(params)) {
    for (let index = 0; index < params.length; index++) sink.string(indexKey(index), paramText(params[index]))
  } else {
    for (const name of Object.keys(params)) sink.string(namedKey(name), paramText(params[name]))
  }
  if (statement.rows !== null) sink.int(KEYS.rows, statement.rows)
  if (statement.error !== null) sink.string(KEYS.errorType, '_OTHER')
}

/** A profile's hook and handler runs: as the timeline stores them (its runs, and the sites they name when they are its process's), or as items. */
export type HookSource = { stored: StoredRuns | StoredSiteRuns, processSites: readonly StoredSite[] | undefined } | { items: readonly TimelineItem[] }

/** The runs as items, in the timeline's order. */
export function hookItems (source: HookSource, route: string | null): readonly TimelineItem[] {
  return 'items' in source ? source.items : hookItemsOf(source.stored, route, source.processSites)
}

/** Items' times as stored runs are: three numbers a run (its site, here 0; its start; its duration, ms). */
export function runsOf (items: readonly TimelineItem[]): number[] {
  const runs: number[] = []
  for (const item of items) runs.push(0, item.startMs, item.durationMs)
  return runs
}

/**
 * The slot of the hook or handler span running at `atNs` (the innermost: the last one in the
 * timeline's order), counting the SERVER span as 0 and the hooks from 1: where a statement or a
 * log line hangs. `runs`: three numbers a hook run (stored runs, runsOf), in the timeline's order.
 */
export function enclosingSpan (runs: readonly number[], atNs: number): number {
  let found = 0
  for (let at = 0; at + 2 < runs.length; at += 3) {
    const startNs = ns(runs[at + 1] as number)
    if (startNs <= atNs && atNs <= startNs + ns(runs[at + 2] as number)) found = at / 3 + 1
  }
  return found
}

/** The events of a profile's spans, with the slot (enclosingSpan's) of the span each goes to: log lines at warn and above, the exception on the SERVER span. */
export function spanEvents (panels: ExportedPanels, runs: readonly number[], endNs: number): Array<[slot: number, event: SpanEvent]> {
  const events: Array<[number, SpanEvent]> = []
  for (const line of panels.logs?.lines ?? []) {
    if (!EXPORTED_LOG_LEVELS.has(line.level)) continue
    const atNs = ns(line.offsetMs)
    events.push([enclosingSpan(runs, atNs), { atNs, name: 'log', attributes: [['log.severity', line.level], ['log.message', line.message]] }])
  }
  const exception = panels.exception ?? null
  if (exception !== null) {
    const attributes: Attributes = [['exception.type', exception.name], ['exception.message', exception.message]]
    const stack = exception.chain[0]?.stack
    if (stack !== undefined) attributes.push(['exception.stacktrace', stack])
    events.push([0, { atNs: endNs, name: 'exception', attributes }])
  }
  return events
}

/**
 * @fastify/otel's span name and attributes for a hook run or the handler; `encoded` is the protobuf
 * encoding's template of the site's spans (made at its first span).
 */
export interface HookSpan { readonly name: string, readonly attributes: Attributes, encoded: unknown }

function frozen (attributes: Attributes): Attributes {
  Object.freeze(attributes)
  return attributes
}

function hookSpanOf (item: TimelineItem): HookSpan {
  const callback = item.name === '' ? 'anonymous' : item.name
  const named = item.name === '' ? (item.plugin === '' ? 'anonymous' : item.plugin) : item.name
  if (item.kind === 'handler') {
    return { name: `handler - ${named}`, attributes: frozen([['hook.name', `${item.plugin} - route-handler`], ['fastify.type', 'request-handler'], ['hook.callback.name', callback]]), encoded: null }
  }
  const route = item.plugin === 'route'
  return {
    name: `${item.type} - ${named}`,
    attributes: frozen([
      ['hook.name', route ? `route -> ${item.type}` : `${item.plugin} - ${item.type}`],
      ['fastify.type', route ? 'route-hook' : 'hook'],
      ['hook.callback.name', callback]
    ]),
    encoded: null
  }
}

/** Distinct hook sites remembered at most (a process registers a few dozen). */
const MAX_HOOK_SITES = 1000
/** The name and attributes of each hook site seen, by plugin, type, name and kind: made once, shared by every span of that site. */
const hookSpans = new Map<string, Map<string, Map<string, Map<string, HookSpan>>>>()
let hookSites = 0

export function hookSpan (item: TimelineItem): HookSpan {
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
