// KeyValue attributes of any value (opentelemetry-proto: common/v1/common.proto), for the resource and
// span events, and the field numbers of a Span (trace/v1/trace.proto) the spans are written with.
import type { AttributeValue, Attributes } from './span-content.js'
import { WIRE_LENGTH, utf8Length, varintSize, type ProtoWriter } from './protobuf-writer.js'

// Field numbers of the OTLP messages written here.
export const SPAN = { traceId: 1, spanId: 2, traceState: 3, parentSpanId: 4, name: 5, kind: 6, start: 7, end: 8, attributes: 9, events: 11, status: 15 }
export const KEY_VALUE = { key: 1, value: 2 }
export const ANY_VALUE = { string: 1, bool: 2, int: 3, double: 4 }
export const STATUS_ERROR = 2

export function isInt64 (value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}

/** Bytes of a length-delimited field (key, length, then `length` bytes) of a field number below 16. */
export function delimitedSize (length: number): number {
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
