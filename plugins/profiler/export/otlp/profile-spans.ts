// A kept profile as one trace of span objects (issue 39, "Send profiles out as traces"): a SERVER span
// for the request, an INTERNAL span per timed hook run and the handler, a CLIENT span per statement,
// log lines at warn and above as events, the error as an `exception` event (span-content.ts says
// what each holds). The JSON encoding's way (trace-encoding.ts); the protobuf one writes its bytes
// without these objects (protobuf-profile.ts).
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../profile.js'
import type { TimelineItem } from '../../panels/timeline/schema.js'
import { BoundedMemo } from '../../../../lib/bounded-memo.js'
import { hookSpan, ns, requestAttributes, routeAttributes, runAttributes, serverError, serverSpanName, SPAN_KIND, spanEvents, sqlAttributes, statementSpanName, dbSystemOf, enclosingSpan, runsOf, URL_MEMO_BOUNDS, urlAttributes, urlChars, urlPartsOf, type AttributeKey, type Attributes, type AttributeSink, type ExportedPanels, type SpanEvent, type UrlParts } from './span-content.js'
import { TraceIds } from './trace-ids.js'

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

/** Attributes into a list. */
class AttributeList implements AttributeSink {
  readonly list: Attributes = []
  string (key: AttributeKey, value: string): void {
    this.list.push([key.name, value])
  }

  int (key: AttributeKey, value: number): void {
    this.list.push([key.name, value])
  }
}

/** A URL's parts by its text (redacted, as stored): parsed once each while it comes back. */
const urlParts = new BoundedMemo<UrlParts | null>(URL_MEMO_BOUNDS, urlChars)

/** A span's events until it has one (most have none): shared and frozen, so replaced by a span's own array at its first event. */
const NO_EVENTS: readonly SpanEvent[] = Object.freeze([])

function addEvent (span: ExportSpan, event: SpanEvent): void {
  if (span.events === NO_EVENTS) span.events = [event]
  else (span.events as SpanEvent[]).push(event)
}

/** The trace of one kept profile, with its timeline's hook and handler items (in the timeline's order; no statements: those are the db panel's). */
export function profileTrace (record: ProfileRecord, panels: ExportedPanels, hooks: readonly TimelineItem[]): ExportTrace {
  const trace = panels.request?.trace
  const statements = panels.db?.statements ?? []
  const spanCount = 1 + hooks.length + statements.length
  const runs = runsOf(hooks)
  // One more slot for the remote parent's id, when the request came with one.
  const ids = new TraceIds(spanCount + (trace === undefined ? 0 : 1))
  const url = urlParts.get(record.url, urlPartsOf)
  const endNs = ns(record.durationMs)
  const attributes = new AttributeList()
  routeAttributes(record, attributes)
  if (url !== null) urlAttributes(url, attributes)
  requestAttributes(record, url, panels.request, attributes)
  const root: ExportSpan = {
    spanId: ids.span(0),
    parentSpanId: trace === undefined ? null : ids.given(spanCount, trace.parentSpanId),
    name: serverSpanName(record),
    kind: SPAN_KIND.server,
    startNs: 0,
    endNs,
    attributes: attributes.list,
    events: NO_EVENTS,
    error: serverError(record, panels)
  }
  const spans: ExportSpan[] = [root]
  for (const item of hooks) {
    const { name, attributes } = hookSpan(item)
    const startNs = ns(item.startMs)
    spans.push({ spanId: ids.span(spans.length), parentSpanId: root.spanId, name, kind: SPAN_KIND.internal, startNs, endNs: startNs + ns(item.durationMs), attributes, events: NO_EVENTS, error: null })
  }
  const system = dbSystemOf(panels)
  for (const statement of statements) {
    const startNs = ns(statement.startMs)
    const attributes = new AttributeList()
    sqlAttributes(statement, system, attributes)
    runAttributes(statement, attributes)
    spans.push({
      spanId: ids.span(spans.length),
      parentSpanId: (spans[enclosingSpan(runs, startNs)] as ExportSpan).spanId,
      name: statementSpanName(statement, system),
      kind: SPAN_KIND.client,
      startNs,
      endNs: startNs + ns(statement.durationMs),
      attributes: attributes.list,
      events: NO_EVENTS,
      error: statement.error
    })
  }
  for (const [slot, event] of spanEvents(panels, runs, endNs)) addEvent(spans[slot] as ExportSpan, event)
  ids.trace(trace?.traceId)
  return { ids: ids.bytes, traceState: trace?.traceState ?? '', startMs: Math.floor(record.id / ID_SLOTS_PER_MS), spans }
}
