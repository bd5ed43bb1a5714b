// ExportTraceServiceRequest in both OTLP/HTTP encodings (opentelemetry-proto: trace/v1/trace.proto,
// collector/trace/v1/trace_service.proto, docs/specification.md "JSON Protobuf Encoding").
// Each trace is encoded once, when it is offered, as its spans' frames; a request is those frames
// under one resource and one scope, put together when it is sent.
import type { ProfileRecord } from '../../profile.js'
import { profileTrace, type ExportSpan, type ExportTrace } from './profile-spans.js'
import { writeProfileSpans } from './protobuf-profile.js'
import { joinedNeighbours, lengthPrefix, ProtoWriter } from './protobuf-writer.js'
import { isInt64, STATUS_ERROR, writeAttributes } from './protobuf-spans.js'
import { hookItems, type AttributeValue, type Attributes, type ExportedPanels, type HookSource } from './span-content.js'
import { SPAN_ID_BYTES, TRACE_ID_BYTES } from './trace-ids.js'

export interface EncodedTrace {
  /** The spans' frames: protobuf ScopeSpans.spans fields, or JSON span objects joined by commas. */
  frames: Buffer
  spans: number
}

/** A kept profile to export: its row, its panels as collected, its timeline's hook and handler runs. */
export interface ExportedProfile { record: ProfileRecord, panels: ExportedPanels, hooks: HookSource }

export interface TraceEncoding {
  contentType: string
  /** One profile's spans (with nothing appended and not taken). */
  encode: (profile: ExportedProfile) => EncodedTrace
  /**
   * Profiles' spans one after the other, taken together: append() writes one after those not taken
   * yet and says how many spans; pendingBytes() is the bytes appended and not taken; unappend()
   * drops what was appended after the first `bytes` of those (a trace not kept, one an error left
   * halfway); take() makes the first `bytes` of them (with their `spans`) one EncodedTrace, a queue
   * entry: no buffer, object or closure a profile.
   */
  append: (profile: ExportedProfile) => number
  pendingBytes: () => number
  unappend: (bytes: number) => void
  take: (bytes: number, spans: number) => EncodedTrace
  /** The request body holding these traces' spans, as the buffers to write one after the other. */
  request: (traces: EncodedTrace[]) => Buffer[]
}

export interface ScopeInfo { name: string, version: string }

// Field numbers of the OTLP messages written here (the spans': protobuf-spans.ts).
const REQUEST = { resourceSpans: 1 }
const RESOURCE_SPANS = { resource: 1, scopeSpans: 2 }
const RESOURCE = { attributes: 1 }
const SCOPE_SPANS = { scope: 1 }
const SCOPE = { name: 1, version: 2 }

/** application/x-protobuf: the default. */
export function protobufEncoding (resource: Record<string, string>, scope: ScopeInfo): TraceEncoding {
  const writer = new ProtoWriter()
  writer.open(RESOURCE_SPANS.resource)
  writeAttributes(writer, RESOURCE.attributes, Object.entries(resource))
  writer.close()
  const resourceFrame = writer.take()
  writer.open(SCOPE_SPANS.scope)
  writer.string(SCOPE.name, scope.name)
  writer.string(SCOPE.version, scope.version)
  writer.close()
  const scopeFrame = writer.take()
  const append = ({ record, panels, hooks }: ExportedProfile): number => writeProfileSpans(writer, record, panels, hooks)
  return {
    contentType: 'application/x-protobuf',
    encode: profile => {
      writer.restart()
      const spans = append(profile)
      return { frames: writer.take(), spans }
    },
    append,
    pendingBytes: () => writer.offset,
    unappend: bytes => { writer.rewind(bytes) },
    take: (bytes, spans) => ({ frames: writer.take(bytes), spans }),
    request: traces => {
      const scopeSpansLength = scopeFrame.length + traces.reduce((sum, trace) => sum + trace.frames.length, 0)
      const scopeSpansPrefix = lengthPrefix(RESOURCE_SPANS.scopeSpans, scopeSpansLength)
      const resourceSpansLength = resourceFrame.length + scopeSpansPrefix.length + scopeSpansLength
      return [lengthPrefix(REQUEST.resourceSpans, resourceSpansLength), resourceFrame, scopeSpansPrefix, scopeFrame, ...joinedNeighbours(traces.map(trace => trace.frames))]
    }
  }
}

/** A decimal epoch-ns string (OTLP/JSON writes 64-bit integers as strings). */
function nanosText (ms: number, extraNs: number): string {
  const whole = ms + Math.floor(extraNs / 1e6)
  return `${whole}${String(extraNs % 1e6).padStart(6, '0')}`
}

function jsonValue (value: AttributeValue): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  return isInt64(value) ? { intValue: String(value) } : { doubleValue: value }
}

function jsonAttributes (attributes: Attributes): Array<{ key: string, value: Record<string, unknown> }> {
  return attributes.map(([key, value]) => ({ key, value: jsonValue(value) }))
}

function hexId (trace: ExportTrace, at: number): string {
  return trace.ids.toString('hex', at, at + SPAN_ID_BYTES)
}

function jsonSpan (trace: ExportTrace, traceId: string, span: ExportSpan): Record<string, unknown> {
  const json: Record<string, unknown> = { traceId, spanId: hexId(trace, span.spanId) }
  if (span === trace.spans[0] && trace.traceState !== '') json.traceState = trace.traceState
  if (span.parentSpanId !== null) json.parentSpanId = hexId(trace, span.parentSpanId)
  json.name = span.name
  json.kind = span.kind
  json.startTimeUnixNano = nanosText(trace.startMs, span.startNs)
  json.endTimeUnixNano = nanosText(trace.startMs, span.endNs)
  json.attributes = jsonAttributes(span.attributes)
  if (span.events.length > 0) json.events = span.events.map(event => ({ timeUnixNano: nanosText(trace.startMs, event.atNs), name: event.name, attributes: jsonAttributes(event.attributes) }))
  if (span.error !== null) json.status = { message: span.error, code: STATUS_ERROR }
  return json
}

/** A trace's spans as OTLP/JSON span objects joined by commas. */
export function jsonTrace (trace: ExportTrace): EncodedTrace {
  const traceId = trace.ids.toString('hex', 0, TRACE_ID_BYTES)
  return { frames: Buffer.from(trace.spans.map(span => JSON.stringify(jsonSpan(trace, traceId, span))).join(',')), spans: trace.spans.length }
}

/**
 * application/json, as OTLP/JSON differs from proto3's JSON: ids in hex (not base64), enums as
 * integers, lowerCamelCase keys, 64-bit integers as decimal strings.
 */
export function jsonEncoding (resource: Record<string, string>, scope: ScopeInfo): TraceEncoding {
  const head = Buffer.from(`{"resourceSpans":[{"resource":${JSON.stringify({ attributes: jsonAttributes(Object.entries(resource)) })},"scopeSpans":[{"scope":${JSON.stringify(scope)},"spans":[`)
  const tail = Buffer.from(']}]}]}')
  const comma = Buffer.from(',')
  const encode = ({ record, panels, hooks }: ExportedProfile): EncodedTrace => jsonTrace(profileTrace(record, panels, hookItems(hooks, record.route)))
  // Appended traces: each one's frames, and the bytes up to its end as taken (commas between).
  let pending: EncodedTrace[] = []
  let ends: number[] = []
  const pendingBytes = (): number => ends[ends.length - 1] ?? 0
  return {
    contentType: 'application/json',
    encode,
    append: profile => {
      const trace = encode(profile)
      ends.push(pendingBytes() + (pending.length > 0 ? 1 : 0) + trace.frames.length)
      pending.push(trace)
      return trace.spans
    },
    pendingBytes,
    unappend: bytes => {
      while (pendingBytes() > bytes) {
        ends.pop()
        pending.pop()
      }
    },
    take: (bytes, spans) => {
      const count = ends.indexOf(bytes) + 1
      const taken = pending.slice(0, count)
      pending = pending.slice(count)
      ends = ends.slice(count).map(end => end - bytes - 1)
      const parts = taken.flatMap((trace, index) => index === 0 ? [trace.frames] : [comma, trace.frames])
      return { frames: Buffer.concat(parts), spans }
    },
    request: traces => {
      const parts: Buffer[] = [head]
      traces.forEach((trace, index) => {
        if (index > 0) parts.push(comma)
        parts.push(trace.frames)
      })
      parts.push(tail)
      return [Buffer.concat(parts)]
    }
  }
}
