// run-suite: shares a process
// The OTLP encodings over generated traces of span objects: whatever the names, attribute values (any
// Unicode, any number, booleans), ids, times (epoch ns past 2^53) and sizes, the protobuf body (the
// protobuf writer, its attributes and the request around the spans, the spans written field by
// field: test/helpers/otlp-span-objects.ts) decodes with the decoder generated from the official
// opentelemetry-proto definitions to exactly what was encoded, and so does the JSON body read into
// the same generated type (test/helpers/otlp-decode.ts). The spans the protobuf export writes
// straight from profiles are compared with these: otlp-profile-encoding.property.test.ts.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import { jsonEncoding, jsonTrace, protobufEncoding } from '../../plugins/profiler/export/otlp/trace-encoding.js'
import type { ExportSpan, ExportTrace } from '../../plugins/profiler/export/otlp/profile-spans.js'
import type { Attributes } from '../../plugins/profiler/export/otlp/span-content.js'
import { decodeJson, decodeProtobuf, type DecodedRequest } from '../helpers/otlp-decode.js'
import { spanObjectFrames } from '../helpers/otlp-span-objects.js'

const bytes = (length: number): fc.Arbitrary<Buffer> => fc.uint8Array({ minLength: length, maxLength: length }).map(array => Buffer.from(array))
const text = fc.string({ unit: 'grapheme', maxLength: 40 })
const value = fc.oneof(text, fc.boolean(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.double({ noNaN: true, noDefaultInfinity: true }).filter(number => !Number.isSafeInteger(number) || number < 0))
const attributes: fc.Arbitrary<Attributes> = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), value), { selector: ([key]) => key, maxLength: 8 })
// A frozen list is one shared by spans (a hook site's).
const spanAttributes: fc.Arbitrary<Attributes> = fc.tuple(attributes, fc.boolean()).map(([list, shared]) => shared ? Object.freeze(list) as Attributes : list)
const offset = fc.integer({ min: 0, max: 3_600_000_000_000 })
type SpanBody = Omit<ExportSpan, 'spanId' | 'parentSpanId'>
const spanBody = fc.record({
  name: text,
  kind: fc.constantFrom(1, 2, 3),
  startNs: offset,
  endNs: offset,
  attributes: spanAttributes,
  events: fc.array(fc.record({ atNs: offset, name: text, attributes }), { maxLength: 3 }),
  error: fc.option(text, { nil: null })
}) satisfies fc.Arbitrary<SpanBody>
/**
 * A trace of 1 to 6 such spans. Its ids' buffer holds the trace id, then 12 slots of 8 random bytes:
 * each span's id in a slot of its own, its parent's (if any) in any slot.
 */
const SLOTS = 12
const traceOf = (body: fc.Arbitrary<SpanBody>): fc.Arbitrary<ExportTrace> => fc.record({
  ids: bytes(16 + 8 * SLOTS),
  traceState: fc.stringMatching(/^([a-z][a-z0-9]{0,8}=[a-z0-9]{1,8})?$/),
  // From 1970 to past 2100: the ns are above 2^53 for all but the first days.
  startMs: fc.integer({ min: 0, max: 4_200_000_000_000 }),
  spans: fc.array(fc.tuple(body, fc.option(fc.nat(SLOTS - 1), { nil: null })), { minLength: 1, maxLength: SLOTS / 2 })
}).map(({ spans, ...one }) => ({
  ...one,
  spans: spans.map(([item, parent], index) => ({ ...item, spanId: 16 + 8 * index, parentSpanId: parent === null ? null : 16 + 8 * parent }))
}))
const trace = traceOf(spanBody)
const resource = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), text, { maxKeys: 5 })

const idHex = (one: ExportTrace, at: number | null): string => at === null ? '' : one.ids.toString('hex', at, at + 8)
const ns = (ms: number, extra: number): bigint => BigInt(ms) * 1_000_000n + BigInt(extra)
const attributesOf = (list: Attributes): Record<string, unknown> => Object.fromEntries(list)

/** What the decoder must give back for these traces. */
function expected (traces: ExportTrace[], resourceAttributes: Record<string, string>): DecodedRequest {
  return {
    resource: { ...resourceAttributes },
    scope: { name: 'scope', version: '1.2.3' },
    spans: traces.flatMap(one => one.spans.map((item, index) => ({
      traceId: one.ids.toString('hex', 0, 16),
      spanId: idHex(one, item.spanId),
      parentSpanId: idHex(one, item.parentSpanId),
      traceState: index === 0 ? one.traceState : '',
      name: item.name,
      kind: item.kind,
      startTimeUnixNano: ns(one.startMs, item.startNs),
      endTimeUnixNano: ns(one.startMs, item.endNs),
      attributes: attributesOf(item.attributes) as Record<string, string | number | boolean>,
      events: item.events.map(event => ({ timeUnixNano: ns(one.startMs, event.atNs), name: event.name, attributes: attributesOf(event.attributes) as Record<string, string | number | boolean> })),
      status: item.error === null ? { code: 0, message: '' } : { code: 2, message: item.error }
    })))
  }
}

for (const [name, encodingOf, encode, decode] of [['protobuf', protobufEncoding, spanObjectFrames, decodeProtobuf], ['JSON', jsonEncoding, jsonTrace, decodeJson]] as const) {
  t.test(`${name}: the official decoder reads back exactly what was encoded`, async t => {
    fc.assert(fc.property(fc.array(trace, { minLength: 1, maxLength: 3 }), resource, (traces, resourceAttributes) => {
      const encoding = encodingOf(resourceAttributes, { name: 'scope', version: '1.2.3' })
      // Each trace encoded twice, then renamed (the same attribute lists, other spans): one request of
      // many traces whose parts lie side by side in the writer's arena.
      const renamed = traces.map(one => ({ ...one, spans: one.spans.map(item => ({ ...item, name: `${item.name}!` })) }))
      const twice = [...traces, ...traces, ...renamed]
      const body = Buffer.concat(encoding.request(twice.map(one => encode(one))))
      const decoded = decode(body)
      if (isDeepStrictEqual(decoded, [expected(twice, resourceAttributes)])) return true
      t.same(decoded, [expected(twice, resourceAttributes)])
      return false
    }), { numRuns: 300 })
    t.pass('300 generated requests read back exactly')
  })
}

t.test('protobuf: one encoding for many requests, its arenas filling up in the middle of traces, reads back exactly', async t => {
  const resourceAttributes = { 'service.name': 'arenas' }
  const encoding = protobufEncoding(resourceAttributes, { name: 'scope', version: '1.2.3' })
  // Long strings: a few hundred runs write past several 256 KiB arenas, most often with messages open.
  const long = fc.string({ minLength: 200, maxLength: 2000 })
  const bigTrace = traceOf(spanBody.chain(item => fc.tuple(long, long).map(([name, error]) => ({ ...item, name, error }))))
  let bytes = 0
  fc.assert(fc.property(fc.array(bigTrace, { minLength: 1, maxLength: 3 }), traces => {
    const encoded = traces.map(one => spanObjectFrames(one))
    bytes += encoded.reduce((sum, one) => sum + one.frames.length, 0)
    const decoded = decodeProtobuf(Buffer.concat(encoding.request(encoded)))
    if (isDeepStrictEqual(decoded, [expected(traces, resourceAttributes)])) return true
    t.same(decoded, [expected(traces, resourceAttributes)])
    return false
  }), { numRuns: 300 })
  t.ok(bytes > 4 * 256 * 1024, `${bytes} bytes encoded: past several arenas`)
})
