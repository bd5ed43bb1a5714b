// The protobuf Span messages of a trace (opentelemetry-proto: trace/v1/trace.proto), as
// ScopeSpans.spans fields, and KeyValue attributes. What comes back from profile to profile is
// encoded once and copied after: a hook site's span (its template, ids and times put in), its
// attribute list, the span names, the string attributes that repeat (bounded caches).
import { SPAN_ID_BYTES, TRACE_ID_BYTES, type AttributeValue, type Attributes, type ExportSpan, type ExportTrace } from './profile-spans.js'
import { ProtoWriter, utf8Length, varintSize, WIRE_LENGTH } from './protobuf-writer.js'

// Field numbers of the OTLP messages written here.
const SCOPE_SPANS = { spans: 2 }
const SPAN = { traceId: 1, spanId: 2, traceState: 3, parentSpanId: 4, name: 5, kind: 6, start: 7, end: 8, attributes: 9, events: 11, status: 15 }
const EVENT = { time: 1, name: 2, attributes: 3 }
const STATUS = { message: 2, code: 3 }
const KEY_VALUE = { key: 1, value: 2 }
const ANY_VALUE = { string: 1, bool: 2, int: 3, double: 4 }
export const STATUS_ERROR = 2

export function isInt64 (value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}

/** Bytes of a length-delimited field (key, length, then `length` bytes) of a field number below 16. */
function delimitedSize (length: number): number {
  return 1 + varintSize(length) + length
}

/** The bytes of an AnyValue's one field: a string, a bool, a non-negative int64, or a double. */
function anyValueSize (value: AttributeValue, stringBytes: number): number {
  if (typeof value === 'string') return delimitedSize(stringBytes)
  if (typeof value === 'boolean') return 2
  return isInt64(value) ? 1 + varintSize(value) : 9
}

/** Each attribute as a KeyValue field. */
export function writeAttributes (writer: ProtoWriter, field: number, attributes: Attributes): void {
  for (const [key, value] of attributes) writeAttribute(writer, field, key, value)
}

/**
 * An attribute as a KeyValue field, its lengths worked out first so that nothing written is moved
 * again (ProtoWriter.open/close shift a nested message once its length is known: twice an attribute).
 */
function writeAttribute (writer: ProtoWriter, field: number, key: string, value: AttributeValue): void {
  const keyBytes = utf8Length(key)
  const stringBytes = typeof value === 'string' ? utf8Length(value) : 0
  const anySize = anyValueSize(value, stringBytes)
  writer.tag(field, WIRE_LENGTH)
  writer.varint(delimitedSize(keyBytes) + delimitedSize(anySize))
  writer.tag(KEY_VALUE.key, WIRE_LENGTH)
  writer.varint(keyBytes)
  writer.utf8(key, keyBytes)
  writer.tag(KEY_VALUE.value, WIRE_LENGTH)
  writer.varint(anySize)
  if (typeof value === 'string') {
    writer.tag(ANY_VALUE.string, WIRE_LENGTH)
    writer.varint(stringBytes)
    writer.utf8(value, stringBytes)
  } else if (typeof value === 'boolean') {
    writer.uint(ANY_VALUE.bool, value ? 1 : 0)
  } else if (isInt64(value)) {
    writer.uint(ANY_VALUE.int, value)
  } else {
    writer.double(ANY_VALUE.double, value)
  }
}

/** Frozen attribute lists (a hook site's, shared by its spans) as span attributes, encoded once each. */
const sharedSpanAttributes = new WeakMap<Attributes, Buffer>()
const sharedWriter = new ProtoWriter()

/**
 * String span attributes as their encoded field, by key then value: most repeat from span to span (a
 * method, a route, a host, a statement's SQL...). The first 64 values up to 256 characters of each
 * of the first 64 keys: about 3 MiB at most.
 */
const stringSpanAttributes = new Map<string, Map<string, Buffer>>()
const MAX_KEYS = 64
const MAX_VALUES_A_KEY = 64
const MAX_VALUE_CHARS = 256

function writeStringSpanAttribute (writer: ProtoWriter, key: string, value: string): void {
  let values = stringSpanAttributes.get(key)
  if (values === undefined && stringSpanAttributes.size < MAX_KEYS) {
    values = new Map()
    stringSpanAttributes.set(key, values)
  }
  let encoded = values?.get(value)
  if (encoded === undefined) {
    if (values === undefined || values.size >= MAX_VALUES_A_KEY || value.length > MAX_VALUE_CHARS) {
      writeAttribute(writer, SPAN.attributes, key, value)
      return
    }
    sharedWriter.restart()
    writeAttribute(sharedWriter, SPAN.attributes, key, value)
    encoded = Buffer.from(sharedWriter.take())
    values.set(value, encoded)
  }
  writer.raw(encoded)
}

function writeSpanAttributes (writer: ProtoWriter, attributes: Attributes): void {
  if (!Object.isFrozen(attributes)) {
    for (const [key, value] of attributes) {
      if (typeof value === 'string') writeStringSpanAttribute(writer, key, value)
      else writeAttribute(writer, SPAN.attributes, key, value)
    }
    return
  }
  let encoded = sharedSpanAttributes.get(attributes)
  if (encoded === undefined) {
    sharedWriter.restart()
    writeAttributes(sharedWriter, SPAN.attributes, attributes)
    encoded = Buffer.from(sharedWriter.take())
    sharedSpanAttributes.set(attributes, encoded)
  }
  writer.raw(encoded)
}

/** Span names as their encoded field: a process has a few dozen (hook sites, routes, statement kinds); the first 1,000 are kept. */
const spanNames = new Map<string, Buffer>()
const MAX_SPAN_NAMES = 1000

function writeSpanName (writer: ProtoWriter, name: string): void {
  let encoded = spanNames.get(name)
  if (encoded === undefined) {
    if (spanNames.size >= MAX_SPAN_NAMES) {
      writer.string(SPAN.name, name)
      return
    }
    sharedWriter.restart()
    sharedWriter.string(SPAN.name, name)
    encoded = Buffer.from(sharedWriter.take())
    spanNames.set(name, encoded)
  }
  writer.raw(encoded)
}

/** A span's length is most often 128 bytes to 16 KiB: two bytes are left for it. */
const SPAN_LENGTH_BYTES = 2

/**
 * A span's fields. With `marks`, where its varying bytes lie are pushed there (offsets from the last
 * take): the trace id, the span id, the parent's id, the start and the end.
 */
function writeSpanFields (writer: ProtoWriter, trace: ExportTrace, span: ExportSpan, marks: number[] | null): void {
  writer.open(SCOPE_SPANS.spans, SPAN_LENGTH_BYTES)
  writer.bytes(SPAN.traceId, trace.ids, 0, TRACE_ID_BYTES)
  marks?.push(writer.offset - TRACE_ID_BYTES)
  writer.bytes(SPAN.spanId, trace.ids, span.spanId, SPAN_ID_BYTES)
  marks?.push(writer.offset - SPAN_ID_BYTES)
  if (span === trace.spans[0] && trace.traceState !== '') writer.string(SPAN.traceState, trace.traceState)
  if (span.parentSpanId !== null) writer.bytes(SPAN.parentSpanId, trace.ids, span.parentSpanId, SPAN_ID_BYTES)
  marks?.push(writer.offset - SPAN_ID_BYTES)
  writeSpanName(writer, span.name)
  writer.uint(SPAN.kind, span.kind)
  writer.nanos(SPAN.start, trace.startMs, span.startNs)
  marks?.push(writer.offset - 8)
  writer.nanos(SPAN.end, trace.startMs, span.endNs)
  marks?.push(writer.offset - 8)
  writeSpanAttributes(writer, span.attributes)
  for (const event of span.events) {
    writer.open(SPAN.events)
    writer.nanos(EVENT.time, trace.startMs, event.atNs)
    writer.string(EVENT.name, event.name)
    writeAttributes(writer, EVENT.attributes, event.attributes)
    writer.close()
  }
  if (span.error !== null) {
    writer.open(SPAN.status)
    writer.string(STATUS.message, span.error)
    writer.uint(STATUS.code, STATUS_ERROR)
    writer.close()
  }
  writer.close()
}

/** A span of a hook site as encoded once, with where its ids and times lie ([trace id, span id, parent id, start, end]). */
interface SpanTemplate { name: string, kind: number, bytes: Buffer, marks: number[] }

/** The template of each site's spans, by its frozen attribute list. */
const spanTemplates = new WeakMap<Attributes, SpanTemplate>()
/** What a template is written from: ids and times all zero (fixed-size fields: the same length as any). */
const TEMPLATE_TRACE: ExportTrace = { ids: Buffer.alloc(TRACE_ID_BYTES + 2 * SPAN_ID_BYTES), traceState: '', startMs: 0, spans: [] }

/** Templates are written apart: writing one encodes names and attributes (in sharedWriter) on the way. */
const templateWriter = new ProtoWriter()

/** The template of `span`'s site: null when it has none (its attribute list not shared, or shared by spans of other names or kinds). */
function templateOf (span: ExportSpan): SpanTemplate | null {
  let template = spanTemplates.get(span.attributes)
  if (template === undefined) {
    templateWriter.restart()
    const marks: number[] = []
    writeSpanFields(templateWriter, TEMPLATE_TRACE, { ...span, spanId: TRACE_ID_BYTES, parentSpanId: TRACE_ID_BYTES + SPAN_ID_BYTES, startNs: 0, endNs: 0 }, marks)
    const bytes = Buffer.from(templateWriter.take())
    // The marks were taken with two bytes left for the span's length: a span of another length's size moved.
    let lengthBytes = 1
    while (((bytes[lengthBytes] as number) & 0x80) !== 0) lengthBytes++
    const moved = lengthBytes - SPAN_LENGTH_BYTES
    template = { name: span.name, kind: span.kind, bytes, marks: marks.map(at => at + moved) }
    spanTemplates.set(span.attributes, template)
  }
  return template.name === span.name && template.kind === span.kind ? template : null
}

/**
 * A span: a hook site's (attributes shared, a parent, no events, no error, no tracestate) copied
 * from its template with its ids and times put in; any other written field by field.
 */
export function writeSpan (writer: ProtoWriter, trace: ExportTrace, span: ExportSpan): void {
  const parent = span.parentSpanId
  const template = parent === null || span.events.length > 0 || span.error !== null || !Object.isFrozen(span.attributes) || (span === trace.spans[0] && trace.traceState !== '')
    ? null
    : templateOf(span)
  if (template === null) {
    writeSpanFields(writer, trace, span, null)
    return
  }
  const at = writer.raw(template.bytes)
  const [traceIdAt, spanIdAt, parentAt, startAt, endAt] = template.marks as [number, number, number, number, number]
  writer.patch(at + traceIdAt, trace.ids, 0, TRACE_ID_BYTES)
  writer.patch(at + spanIdAt, trace.ids, span.spanId, SPAN_ID_BYTES)
  writer.patch(at + parentAt, trace.ids, parent as number, SPAN_ID_BYTES)
  writer.patchNanos(at + startAt, trace.startMs, span.startNs)
  writer.patchNanos(at + endAt, trace.startMs, span.endNs)
}
