// run-suite: shares a process
// The queue's byte estimate of a capture (runtime/profile-size.ts) walks its values without
// allocating (one stack for the thread). For generated captures (headers, bodies deep and wide
// enough to spend the walk's budget, errors, typed arrays, statements with positional and named
// parameters), it gives the same figure as the walk it replaced (the reference below), and a walk
// cut short by its budget leaves nothing behind for the next.
import fc from 'fast-check'
import t from 'tap'
import type { RequestCapture } from '../../plugins/profiler/capture/capture.js'
import { probedPanels } from '../../plugins/profiler/panels/probes.js'
import { dbPanel } from '../../plugins/profiler/panels/db/index.js'
import { profileBytes } from '../../plugins/profiler/runtime/profile-size.js'

/** The estimate as it was: an object and a stack a walk, Object.values for the parameters. */
function referenceBytes (capture: RequestCapture): number {
  const approximate = (value: unknown, budget = 1000): { bytes: number, budget: number } => {
    const walk = { bytes: 0, budget }
    const stack: unknown[] = [value]
    while (stack.length > 0 && walk.budget > 0) {
      const item = stack.pop()
      walk.budget--
      walk.bytes += 16
      if (typeof item === 'string') walk.bytes += item.length
      else if (ArrayBuffer.isView(item)) walk.bytes += item.byteLength
      else if (typeof item === 'object' && item !== null) {
        for (const key in item) {
          if (!Object.hasOwn(item, key)) continue
          walk.bytes += key.length
          stack.push((item as Record<string, unknown>)[key])
        }
      }
    }
    if (stack.length > 0) walk.budget = 0
    return walk
  }
  const headers = capture.requestHeaders
  const body = approximate(capture.body)
  const declared = Number(headers['content-length'])
  const bodyBytes = body.budget > 0 ? body.bytes : Math.max(body.bytes, Number.isSafeInteger(declared) && declared >= 0 ? declared : 1024 * 1024)
  const statements = (capture.taken?.[probedPanels.findIndex(panel => panel === dbPanel)] as { statements: Array<{ params: unknown }> } | undefined)?.statements ?? []
  let taken = 0
  for (const { params } of statements) {
    taken += 64
    for (const value of typeof params === 'object' && params !== null ? Object.values(params) : []) if (typeof value === 'string') taken += value.length
  }
  return 1024 + 2 * capture.rawUrl.length + approximate(headers).bytes + approximate(capture.responseHeaders).bytes + (capture.responseText?.length ?? 0) +
    approximate(capture.error).bytes + approximate(capture.routingFailure).bytes + bodyBytes + approximate(capture.shapedBody).bytes + (capture.unparsedBody?.text.length ?? 0) + taken
}

const leaf = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null), fc.boolean(), fc.uint8Array({ maxLength: 16 }))
/** Values deep and wide: some spend the walk's 1,000 slots before their end. */
const value = fc.letrec(tie => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('node'), { maxLength: 40 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('node'), { maxKeys: 30 }))
})).node
const headers = fc.dictionary(fc.constantFrom('content-type', 'content-length', 'user-agent', 'x-a', 'cookie'), fc.oneof(fc.string({ maxLength: 30 }), fc.nat(5000).map(String), fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 })))
const params = fc.oneof(fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null)), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 12 }), fc.integer())), fc.constant(null))

const capture = fc.record({
  rawUrl: fc.string({ maxLength: 60 }),
  requestHeaders: headers,
  responseHeaders: headers,
  responseText: fc.option(fc.string({ maxLength: 80 }), { nil: undefined }),
  error: fc.option(fc.record({ name: fc.string({ maxLength: 10 }), message: fc.string({ maxLength: 30 }), chain: fc.array(fc.record({ name: fc.string(), message: fc.string() }), { maxLength: 3 }) }), { nil: null }),
  routingFailure: fc.option(value, { nil: null }),
  // A body wider than the walk's 1,000 slots: its declared length (or the body limit) counts instead.
  body: fc.option(fc.oneof(value, fc.array(fc.string({ maxLength: 4 }), { minLength: 1000, maxLength: 1100 })), { nil: undefined }),
  shapedBody: fc.option(value, { nil: undefined }),
  unparsedBody: fc.option(fc.record({ text: fc.string({ maxLength: 40 }), truncated: fc.boolean(), sizeKnown: fc.boolean(), lossy: fc.boolean() }), { nil: undefined }),
  statements: fc.option(fc.array(fc.record({ params }), { maxLength: 5 }), { nil: undefined })
}).map(({ statements, ...fields }): RequestCapture => {
  const taken = new Array<unknown>(probedPanels.length)
  if (statements !== undefined) taken[probedPanels.findIndex(panel => panel === dbPanel)] = { engine: 'sqlite', statements, count: statements.length, totalMs: 0 }
  return { kind: 'capture', token: 'x', taken, ...fields } as unknown as RequestCapture
})

t.test('the estimate equals the walk it replaced, capture after capture', async t => {
  let cutShort = 0
  fc.assert(fc.property(fc.array(capture, { minLength: 1, maxLength: 4 }), captures => {
    for (const one of captures) {
      const expected = referenceBytes(one)
      if (profileBytes(one) !== expected) throw new Error(`estimated ${profileBytes(one)}, the walk gave ${expected}`)
      if (Array.isArray(one.body) && one.body.length >= 1000) cutShort++
    }
  }), { numRuns: 400 })
  t.ok(cutShort > 0, `${cutShort} captures had bodies that spent the walk's budget`)
})
