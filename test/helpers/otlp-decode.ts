// OTLP/HTTP trace bodies decoded with the decoder generated (protobufjs static code) from the
// official opentelemetry-proto definitions, as @opentelemetry/otlp-transformer 0.214 ships it (dev
// dependency `otlp-official-decoder`): a decoder we did not write. Read by otlp-receiver.ts and by
// tests that decode bodies without a receiver (apart from it: those start no server).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
/** OTLP/JSON's 64-bit integers, written as decimal strings. */
const INT64_KEYS = new Set(['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'intValue'])

interface Message { toJSON: () => unknown }
interface MessageType {
  decode: (bytes: Uint8Array) => Message
  fromObject: (object: unknown) => Message
  verify: (object: unknown) => string | null
  toObject: (message: Message, options: Record<string, unknown>) => Record<string, unknown>
}
const generated = require('otlp-official-decoder/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType } } } } }
}
/** opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest, as protobufjs generated it. */
const ExportTraceServiceRequest = generated.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest

export interface DecodedSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  traceState: string
  name: string
  kind: number
  startTimeUnixNano: bigint
  endTimeUnixNano: bigint
  attributes: Record<string, string | number | boolean>
  events: Array<{ timeUnixNano: bigint, name: string, attributes: Record<string, string | number | boolean> }>
  status: { code: number, message: string }
}
export interface DecodedRequest { resource: Record<string, string | number | boolean>, scope: { name: string, version: string }, spans: DecodedSpan[] }

type PlainObject = Record<string, unknown>

function valueOf (value: PlainObject): string | number | boolean {
  if ('stringValue' in value) return value.stringValue as string
  if ('boolValue' in value) return value.boolValue as boolean
  if ('intValue' in value) return Number(String(value.intValue))
  if ('doubleValue' in value) return value.doubleValue as number
  throw new Error(`an attribute value of no kind: ${JSON.stringify(value)}`)
}

function attributesOf (list: unknown): Record<string, string | number | boolean> {
  const entries = ((list ?? []) as PlainObject[]).map(entry => [entry.key as string, valueOf(entry.value as PlainObject)] as const)
  if (new Set(entries.map(([key]) => key)).size !== entries.length) throw new Error('an attribute key twice')
  // fromEntries: a key such as __proto__ or valueOf is an own property like any other.
  return Object.fromEntries(entries)
}

function hex (bytes: unknown): string {
  return Buffer.from((bytes ?? []) as Uint8Array).toString('hex')
}

/** The decoded message in plain shapes: ids in hex, times as bigint ns, attributes as objects. */
function plain (message: Message): DecodedRequest[] {
  const object = ExportTraceServiceRequest.toObject(message, { longs: String, bytes: Array, defaults: true, arrays: true })
  return (object.resourceSpans as PlainObject[]).map(resourceSpans => {
    const scopeSpans = resourceSpans.scopeSpans as PlainObject[]
    if (scopeSpans.length !== 1) throw new Error(`${scopeSpans.length} scopes in one resource`)
    const only = scopeSpans[0] as PlainObject
    return {
      resource: attributesOf((resourceSpans.resource as PlainObject).attributes),
      scope: { name: (only.scope as PlainObject).name as string, version: (only.scope as PlainObject).version as string },
      spans: (only.spans as PlainObject[]).map(span => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        traceState: span.traceState as string,
        name: span.name as string,
        kind: span.kind as number,
        startTimeUnixNano: BigInt(span.startTimeUnixNano as string),
        endTimeUnixNano: BigInt(span.endTimeUnixNano as string),
        attributes: attributesOf(span.attributes),
        events: (span.events as PlainObject[]).map(event => ({ timeUnixNano: BigInt(event.timeUnixNano as string), name: event.name as string, attributes: attributesOf(event.attributes) })),
        status: { code: (span.status as PlainObject | null)?.code as number ?? 0, message: (span.status as PlainObject | null)?.message as string ?? '' }
      }))
    }
  })
}

/** An application/x-protobuf body, decoded by the official definitions' generated decoder. */
export function decodeProtobuf (body: Buffer): DecodedRequest[] {
  return plain(ExportTraceServiceRequest.decode(body))
}

/**
 * An application/json body (OTLP/JSON: hex ids, integer enums, decimal-string 64-bit integers),
 * read into the generated message type: the ids turned to bytes first (protobufjs, as proto3's JSON
 * mapping, would take base64), everything else as written. verify() must find nothing wrong.
 */
export function decodeJson (body: Buffer): DecodedRequest[] {
  const object = JSON.parse(body.toString('utf8')) as PlainObject
  for (const resourceSpans of object.resourceSpans as PlainObject[]) {
    for (const scopeSpans of resourceSpans.scopeSpans as PlainObject[]) {
      for (const span of scopeSpans.spans as PlainObject[]) {
        for (const key of ['traceId', 'spanId', 'parentSpanId']) {
          if (span[key] === undefined) continue
          if (!/^[0-9a-f]+$/.test(span[key] as string)) throw new Error(`${key} is not lowercase hex: ${String(span[key])}`)
          span[key] = Buffer.from(span[key] as string, 'hex')
        }
      }
    }
  }
  // verify() wants 64-bit integers as numbers or Longs: it checks a copy with OTLP/JSON's decimal
  // strings (each checked to be one) as numbers; fromObject() reads the strings themselves, exactly.
  const numbered = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || value instanceof Buffer) return value
    if (Array.isArray(value)) return value.map(numbered)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => {
      if (!INT64_KEYS.has(key)) return [key, numbered(inner)]
      if (typeof inner !== 'string' || !/^[0-9]+$/.test(inner)) throw new Error(`${key} is not a decimal string: ${JSON.stringify(inner)}`)
      return [key, Number(inner)]
    }))
  }
  const problem = ExportTraceServiceRequest.verify(numbered(object))
  if (problem !== null) throw new Error(`the JSON body does not fit ExportTraceServiceRequest: ${problem}`)
  return plain(ExportTraceServiceRequest.fromObject(object))
}
