// The protobuf encoding of a trace of span objects (profile-spans.ts's ExportTrace), field by field,
// as the export wrote its spans before it wrote them straight from the profile (protobuf-profile.ts):
// what the tests compare the direct encoding with, and how they put the protobuf writer through
// any value (strings of any Unicode, doubles, booleans, times past 2^53).
import type { ExportSpan, ExportTrace } from '../../plugins/profiler/export/otlp/profile-spans.js'
import { SPAN, STATUS_ERROR, writeAttributes } from '../../plugins/profiler/export/otlp/protobuf-spans.js'
import { ProtoWriter } from '../../plugins/profiler/export/otlp/protobuf-writer.js'
import type { EncodedTrace } from '../../plugins/profiler/export/otlp/trace-encoding.js'
import { SPAN_ID_BYTES, TRACE_ID_BYTES } from '../../plugins/profiler/export/otlp/trace-ids.js'

const SCOPE_SPANS_SPANS = 2
const EVENT = { time: 1, name: 2, attributes: 3 }
const STATUS = { message: 2, code: 3 }

function writeSpan (writer: ProtoWriter, trace: ExportTrace, span: ExportSpan): void {
  writer.open(SCOPE_SPANS_SPANS, 2)
  writer.bytes(SPAN.traceId, trace.ids, 0, TRACE_ID_BYTES)
  writer.bytes(SPAN.spanId, trace.ids, span.spanId, SPAN_ID_BYTES)
  if (span === trace.spans[0] && trace.traceState !== '') writer.string(SPAN.traceState, trace.traceState)
  if (span.parentSpanId !== null) writer.bytes(SPAN.parentSpanId, trace.ids, span.parentSpanId, SPAN_ID_BYTES)
  writer.string(SPAN.name, span.name)
  writer.uint(SPAN.kind, span.kind)
  writer.nanos(SPAN.start, trace.startMs, span.startNs)
  writer.nanos(SPAN.end, trace.startMs, span.endNs)
  writeAttributes(writer, SPAN.attributes, span.attributes)
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

/** One writer for every trace (its arenas fill up as the export's do). */
const writer = new ProtoWriter()

/** A trace's spans as ScopeSpans.spans fields: protobufEncoding(...).request() takes them as it takes the export's. */
export function spanObjectFrames (trace: ExportTrace): EncodedTrace {
  writer.restart()
  for (const span of trace.spans) writeSpan(writer, trace, span)
  return { frames: writer.take(), spans: trace.spans.length }
}
