// A kept profile's spans written as protobuf Span messages (opentelemetry-proto: trace/v1/trace.proto;
// ScopeSpans.spans fields) straight from what the shaped profile holds, with no span objects in
// between (span-content.ts says what each span holds). What comes back from profile to profile is
// encoded once and copied after, its ids and times put in: the head of each hook site's spans, of
// each statement's (by its SQL), of the SERVER span of each method and route; a URL's attributes;
// each attribute key. An attribute written is one key's bytes copied and its value's written.
import { BoundedMemo } from '../../../../lib/bounded-memo.js'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../profile.js'
import type { DbStatement } from '../../panels/db/schema.js'
import { runsInMs } from '../../panels/timeline/collect.js'
import type { StoredRuns, StoredSite, TimelineItem } from '../../panels/timeline/schema.js'
import { lengthPrefix, ProtoWriter, utf8Length, varintSize, WIRE_LENGTH, writeVarint } from './protobuf-writer.js'
import { ANY_VALUE, delimitedSize, KEY_VALUE, SPAN, STATUS_ERROR, writeAttributes } from './protobuf-spans.js'
import { hookSpan, ns, requestAttributes, routeAttributes, runAttributes, serverError, serverSpanName, SPAN_KIND, spanEvents, sqlAttributes, statementSpanName, dbSystemOf, enclosingSpan, runsOf, URL_MEMO_BOUNDS, urlAttributes, urlPartsOf, type AttributeKey, type AttributeSink, type ExportedPanels, type HookSource, type SpanEvent, type UrlParts } from './span-content.js'
import { SPAN_ID_BYTES, TRACE_ID_BYTES, TraceIds } from './trace-ids.js'

const SCOPE_SPANS_SPANS = 2
const EVENT = { time: 1, name: 2, attributes: 3 }
const STATUS = { message: 2, code: 3 }
/** A span's length is most often 128 bytes to 16 KiB: two bytes are left for it. */
const SPAN_LENGTH_BYTES = 2

/**
 * The fields a span starts with, encoded once for the spans that share them: trace id, span id,
 * parent id (when `parentAt` is not -1), name, kind, start and end, then the attributes they share;
 * the ids and times zero, put in for each span at the offsets given.
 */
interface SpanHead { bytes: Buffer, traceAt: number, spanAt: number, parentAt: number, startAt: number, endAt: number }

/** `key`'s KeyValue.key field. */
function keyField (key: AttributeKey): Buffer {
  if (key.encoded === null) {
    const bytes = utf8Length(key.name)
    const field = Buffer.allocUnsafe(1 + varintSize(bytes) + bytes)
    field[0] = KEY_VALUE.key * 8 + WIRE_LENGTH
    field.write(key.name, writeVarint(field, 1, bytes))
    key.encoded = field
  }
  return key.encoded
}

/** Span attributes written into a ProtoWriter as KeyValue fields: the key's bytes copied, the value's lengths worked out first (nothing written is moved). */
class ProtoAttributes implements AttributeSink {
  constructor (public writer: ProtoWriter) {}

  string (key: AttributeKey, value: string): void {
    const bytes = utf8Length(value)
    this.keyValue(key, delimitedSize(bytes))
    this.writer.tag(ANY_VALUE.string, WIRE_LENGTH)
    this.writer.varint(bytes)
    this.writer.utf8(value, bytes)
  }

  /** A non-negative integer (below 2^53). */
  int (key: AttributeKey, value: number): void {
    this.keyValue(key, 1 + varintSize(value))
    this.writer.uint(ANY_VALUE.int, value)
  }

  /** A KeyValue field up to its value's one field, of `anySize` bytes, written next. */
  private keyValue (key: AttributeKey, anySize: number): void {
    const field = keyField(key)
    const writer = this.writer
    writer.tag(SPAN.attributes, WIRE_LENGTH)
    writer.varint(field.length + delimitedSize(anySize))
    writer.raw(field)
    writer.tag(KEY_VALUE.value, WIRE_LENGTH)
    writer.varint(anySize)
  }
}

/** Heads are written apart from the trace being written (they are made in the middle of it). */
const headWriter = new ProtoWriter()
const headAttributes = new ProtoAttributes(headWriter)
const ZERO_IDS = Buffer.alloc(TRACE_ID_BYTES)

function makeHead (name: string, kind: number, withParent: boolean, attributes: (sink: ProtoAttributes) => void): SpanHead {
  const writer = headWriter
  writer.restart()
  writer.bytes(SPAN.traceId, ZERO_IDS, 0, TRACE_ID_BYTES)
  const traceAt = writer.offset - TRACE_ID_BYTES
  writer.bytes(SPAN.spanId, ZERO_IDS, 0, SPAN_ID_BYTES)
  const spanAt = writer.offset - SPAN_ID_BYTES
  let parentAt = -1
  if (withParent) {
    writer.bytes(SPAN.parentSpanId, ZERO_IDS, 0, SPAN_ID_BYTES)
    parentAt = writer.offset - SPAN_ID_BYTES
  }
  writer.string(SPAN.name, name)
  writer.uint(SPAN.kind, kind)
  writer.nanos(SPAN.start, 0, 0)
  const startAt = writer.offset - 8
  writer.nanos(SPAN.end, 0, 0)
  const endAt = writer.offset - 8
  attributes(headAttributes)
  return { bytes: Buffer.from(writer.take()), traceAt, spanAt, parentAt, startAt, endAt }
}

/** A head as a whole ScopeSpans.spans field (its key and length in front): a span of nothing else. */
function whole (head: SpanHead): SpanHead {
  const prefix = lengthPrefix(SCOPE_SPANS_SPANS, head.bytes.length)
  const by = prefix.length
  return { bytes: Buffer.concat([prefix, head.bytes]), traceAt: head.traceAt + by, spanAt: head.spanAt + by, parentAt: head.parentAt === -1 ? -1 : head.parentAt + by, startAt: head.startAt + by, endAt: head.endAt + by }
}

/** A hook site's head, and its spans whole (most have no event: copied as they are, no length to work out). */
interface HookHeads { head: SpanHead, whole: SpanHead }

/** The heads of a hook site's spans (made at its first span, kept with the site). */
function hookHeads (item: TimelineItem): HookHeads {
  const site = hookSpan(item)
  if (site.encoded === null) {
    const head = makeHead(site.name, SPAN_KIND.internal, true, sink => { writeAttributes(sink.writer, SPAN.attributes, site.attributes) })
    site.encoded = { head, whole: whole(head) } satisfies HookHeads
  }
  return site.encoded as HookHeads
}

/** A statement's head, by its SQL, with what else it was made from. */
interface StatementHead { system: string | null, kind: string, head: SpanHead }
const statementHeads = new BoundedMemo<StatementHead | null>({ entries: 2000, chars: 4 * 1024 * 1024, maxKeyChars: 16 * 1024 }, made => made === null ? 0 : made.head.bytes.length)

function statementHeadOf (statement: DbStatement, system: string | null): SpanHead {
  const make = (): StatementHead => ({ system, kind: statement.kind, head: makeHead(statementSpanName(statement, system), SPAN_KIND.client, true, sink => { sqlAttributes(statement, system, sink) }) })
  const made = statementHeads.get(statement.sql, make) as StatementHead
  return made.system === system && made.kind === statement.kind ? made.head : make().head
}

/** The SERVER span's heads by route (null: none), then method: without and with a remote parent; the first 1,000 kept. */
const serverHeads = new Map<string | null, Map<string, Array<SpanHead | undefined>>>()
let serverHeadCount = 0
const MAX_SERVER_HEADS = 1000

function serverHeadOf (record: ProfileRecord, withParent: boolean): SpanHead {
  // Looked up by the record's own strings (no key made a profile).
  const byMethod = serverHeads.get(record.route)
  const heads = byMethod?.get(record.method)
  const remembered = heads?.[withParent ? 1 : 0]
  if (remembered !== undefined) return remembered
  const head = makeHead(serverSpanName(record), SPAN_KIND.server, withParent, sink => { routeAttributes(record, sink) })
  if (serverHeadCount < MAX_SERVER_HEADS) {
    serverHeadCount++
    const made = heads ?? [undefined, undefined]
    made[withParent ? 1 : 0] = head
    if (byMethod === undefined) serverHeads.set(record.route, new Map([[record.method, made]]))
    else byMethod.set(record.method, made)
  }
  return head
}

/** A URL's parts and its attributes' bytes, by the URL's text (redacted, as stored). */
interface UrlBytes { parts: UrlParts, bytes: Buffer }
const urlBytes = new BoundedMemo<UrlBytes | null>(URL_MEMO_BOUNDS, made => made === null ? 0 : made.bytes.length + made.parts.origin.length)

function urlBytesOf (text: string): UrlBytes | null {
  const parts = urlPartsOf(text)
  if (parts === null) return null
  headWriter.restart()
  urlAttributes(parts, headAttributes)
  return { parts, bytes: Buffer.from(headWriter.take()) }
}

/** Writes a head, with the ids (`spanAt`, `parentAt`: from the trace's ids' base) and times of its span put in. */
function writeHead (writer: ProtoWriter, head: SpanHead, ids: TraceIds, spanAt: number, parentAt: number, startMs: number, startNs: number, endNs: number): void {
  const at = writer.raw(head.bytes)
  const base = ids.base
  writer.patchId(at + head.traceAt, ids.view, base, TRACE_ID_BYTES)
  writer.patchId(at + head.spanAt, ids.view, base + spanAt, SPAN_ID_BYTES)
  if (head.parentAt !== -1) writer.patchId(at + head.parentAt, ids.view, base + parentAt, SPAN_ID_BYTES)
  writer.patchNanos(at + head.startAt, startMs, startNs)
  writer.patchNanos(at + head.endAt, startMs, endNs)
}

function writeEvents (writer: ProtoWriter, events: Array<[number, SpanEvent]>, slot: number, startMs: number): void {
  for (const [at, event] of events) {
    if (at !== slot) continue
    writer.open(SPAN.events)
    writer.nanos(EVENT.time, startMs, event.atNs)
    writer.string(EVENT.name, event.name)
    writeAttributes(writer, EVENT.attributes, event.attributes)
    writer.close()
  }
}

function writeStatus (writer: ProtoWriter, message: string): void {
  writer.open(SPAN.status)
  writer.string(STATUS.message, message)
  writer.uint(STATUS.code, STATUS_ERROR)
  writer.close()
}

/** The attributes of the trace being written (its writer set at each). */
const attributes = new ProtoAttributes(headWriter)

/** A profile's hook runs (three numbers each, stored runs' way) in the timeline's order, and the heads of their sites' spans. */
interface HookSpans { runs: readonly number[], heads: HookHeads[] }

/** Whether run `a` goes after run `b` in the timeline's order: by start; at the same start, the longer first (it holds the other). */
function after (runs: readonly number[], a: number, b: number): boolean {
  return ((runs[a + 1] as number) - (runs[b + 1] as number) || (runs[b + 2] as number) - (runs[a + 2] as number)) > 0
}

/**
 * Stored runs (three numbers each, in the order they began) in the timeline's order: as they are
 * when they are in it, else a copy sorted by insertion (stable, as the timeline's sort; the runs are
 * nearly in order). Two runs beginning in the same microsecond, the shorter first, are the most
 * common reason (7 profiles in 10 of the bench's mix).
 */
function inTimelineOrder (runs: readonly number[]): readonly number[] {
  const end = runs.length - runs.length % 3
  let at = 3
  while (at < end && !after(runs, at - 3, at)) at += 3
  if (at >= end) return runs
  const sorted = runs.slice(0, end)
  for (; at < end; at += 3) {
    const place = sorted[at] as number
    const start = sorted[at + 1] as number
    const duration = sorted[at + 2] as number
    let to = at
    while (to > 0 && ((sorted[to - 2] as number) - start || duration - (sorted[to - 1] as number)) > 0) {
      sorted[to] = sorted[to - 3] as number
      sorted[to + 1] = sorted[to - 2] as number
      sorted[to + 2] = sorted[to - 1] as number
      to -= 3
    }
    sorted[to] = place
    sorted[to + 1] = start
    sorted[to + 2] = duration
  }
  return sorted
}

/** What a run names when its site is missing (as the timeline reads it). */
const UNNAMED_SITE: StoredSite = ['', '', '']

/**
 * What is remembered of each site of a process's list of sites (the same list, append-only, while it
 * runs), by its place: its spans' heads, a handler's by route. One lookup a profile, not one a run.
 */
type SiteHeads = HookHeads | Map<string, HookHeads>
const processSiteHeads = new WeakMap<readonly StoredSite[], Array<SiteHeads | undefined>>()
const MAX_ROUTES_A_HANDLER = 1000

/** The heads of `site`'s spans; `memo` (null: not remembered) holds what is remembered of it. */
function headsOfSite (site: StoredSite, route: string | null, memo: Array<SiteHeads | undefined> | null, place: number): HookHeads {
  const [hook, name, plugin] = site
  const remembered = memo === null ? undefined : memo[place]
  if (hook !== 'handler') {
    if (remembered !== undefined) return remembered as HookHeads
    const heads = hookHeads({ kind: 'hook', type: hook, name, plugin, startMs: 0, durationMs: 0, ended: true })
    if (memo !== null) memo[place] = heads
    return heads
  }
  // A handler's plugin is its route (as the timeline reads it): its span is named after it.
  const byRoute = (remembered as Map<string, HookHeads> | undefined) ?? new Map<string, HookHeads>()
  if (memo !== null && remembered === undefined) memo[place] = byRoute
  const routed = route ?? ''
  let heads = byRoute.get(routed)
  if (heads === undefined) {
    heads = hookHeads({ kind: 'handler', type: 'handler', name, plugin: routed, startMs: 0, durationMs: 0, ended: true })
    if (byRoute.size < MAX_ROUTES_A_HANDLER) byRoute.set(routed, heads)
  }
  return heads
}

/** What is remembered of the sites of a process's list. */
function memoOf (sites: readonly StoredSite[]): Array<SiteHeads | undefined> {
  let memo = processSiteHeads.get(sites)
  if (memo === undefined) {
    memo = []
    processSiteHeads.set(sites, memo)
  }
  return memo
}

/** The hook runs of a profile read as stored (no item a run), or its items. */
function hookSpansOf (source: HookSource, route: string | null): HookSpans {
  if ('stored' in source) {
    const own = 'sites' in source.stored
    const sites = own ? (source.stored as StoredRuns).sites : source.processSites ?? []
    const runs = inTimelineOrder(runsInMs(source.stored))
    // A profile's own sites are its own objects: not remembered (its process's are).
    const memo = own ? null : memoOf(sites)
    const heads: HookHeads[] = []
    for (let at = 0; at + 2 < runs.length; at += 3) {
      const named = runs[at] as number
      const place = named >= 0 ? named : -1 - named
      const site = sites[place]
      // A missing site's place is not remembered: the list may hold it later.
      heads.push(site === undefined ? headsOfSite(UNNAMED_SITE, route, null, 0) : headsOfSite(site, route, memo, place))
    }
    return { runs, heads }
  }
  return { runs: runsOf(source.items), heads: source.items.map(hookHeads) }
}

/** The spans of one kept profile written into `writer`; how many. */
export function writeProfileSpans (writer: ProtoWriter, record: ProfileRecord, panels: ExportedPanels, source: HookSource): number {
  const trace = panels.request?.trace
  const statements = panels.db?.statements ?? []
  const { runs, heads } = hookSpansOf(source, record.route)
  const spanCount = 1 + heads.length + statements.length
  // One more slot for the remote parent's id, when the request came with one.
  const traceIds = new TraceIds(spanCount + (trace === undefined ? 0 : 1))
  traceIds.trace(trace?.traceId)
  const ids = traceIds
  const startMs = Math.floor(record.id / ID_SLOTS_PER_MS)
  const endNs = ns(record.durationMs)
  const events = spanEvents(panels, runs, endNs)
  attributes.writer = writer

  // The SERVER span.
  const rootAt = traceIds.span(0)
  writer.open(SCOPE_SPANS_SPANS, SPAN_LENGTH_BYTES)
  writeHead(writer, serverHeadOf(record, trace !== undefined), ids, rootAt, trace === undefined ? -1 : traceIds.given(spanCount, trace.parentSpanId), startMs, 0, endNs)
  if (trace !== undefined && trace.traceState !== null && trace.traceState !== '') writer.string(SPAN.traceState, trace.traceState)
  const url = urlBytes.get(record.url, urlBytesOf)
  if (url !== null) writer.raw(url.bytes)
  requestAttributes(record, url?.parts ?? null, panels.request, attributes)
  writeEvents(writer, events, 0, startMs)
  const error = serverError(record, panels)
  if (error !== null) writeStatus(writer, error)
  writer.close()

  for (let index = 0; index < heads.length; index++) {
    const site = heads[index] as HookHeads
    const startNs = ns(runs[3 * index + 1] as number)
    const endAtNs = startNs + ns(runs[3 * index + 2] as number)
    if (events.length === 0) {
      writeHead(writer, site.whole, ids, traceIds.span(index + 1), rootAt, startMs, startNs, endAtNs)
      continue
    }
    writer.open(SCOPE_SPANS_SPANS, SPAN_LENGTH_BYTES)
    writeHead(writer, site.head, ids, traceIds.span(index + 1), rootAt, startMs, startNs, endAtNs)
    writeEvents(writer, events, index + 1, startMs)
    writer.close()
  }

  const system = dbSystemOf(panels)
  for (let index = 0; index < statements.length; index++) {
    const statement = statements[index] as DbStatement
    const startNs = ns(statement.startMs)
    const parentAt = TRACE_ID_BYTES + enclosingSpan(runs, startNs) * SPAN_ID_BYTES
    writer.open(SCOPE_SPANS_SPANS, SPAN_LENGTH_BYTES)
    writeHead(writer, statementHeadOf(statement, system), ids, traceIds.span(1 + heads.length + index), parentAt, startMs, startNs, startNs + ns(statement.durationMs))
    runAttributes(statement, attributes)
    if (statement.error !== null) writeStatus(writer, statement.error)
    writer.close()
  }
  return spanCount
}
