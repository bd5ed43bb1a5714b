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
interface ExportedProfile { record: ProfileRecord, panels: ExportedPanels, hooks: HookSource }

export interface TraceEncoding {
  contentType: string
  encode: (profile: ExportedProfile) => EncodedTrace
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
  return {
    contentType: 'application/x-protobuf',
    encode: ({ record, panels, hooks }) => {
      writer.restart()
      const spans = writeProfileSpans(writer, record, panels, hooks)
      return { frames: writer.take(), spans }
    },
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
  return {
    contentType: 'application/json',
    encode: ({ record, panels, hooks }) => jsonTrace(profileTrace(record, panels, hookItems(hooks, record.route))),
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
