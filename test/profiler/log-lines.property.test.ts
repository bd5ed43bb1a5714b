// run-suite: shares a process
// Fastify's own log lines ("incoming request", "request completed") cross to the writer without
// their message, which their kind names (panels/logs/probe.ts), and the writer puts it back
// (panels/logs/unpack-lines.ts). For generated requests (the request's own lines, with or without
// a message, format values and fields, between and around Fastify's), what the writer rebuilds
// after the structured clone deep-equals the clone of the lines as the probe kept them before
// (Fastify's lines with their message, written out here), and nothing else changes; through
// app.inject the real probe keeps no message for Fastify's lines and the panel shows them.
import { deepStrictEqual } from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import type { QueuedProfile, RequestCapture } from '../../plugins/profiler/capture/capture.js'
import { logsPanel } from '../../plugins/profiler/panels/logs/index.js'
import { FASTIFY_COMPLETED, FASTIFY_INCOMING, logsProbe, type RequestLogs } from '../../plugins/profiler/panels/logs/probe.js'
import { unpackLines } from '../../plugins/profiler/panels/logs/unpack-lines.js'
import { buildTestApp } from '../helpers/app.js'
import { profileJson } from '../helpers/profiler.js'
import { takenCaptures } from '../helpers/taken-capture.js'

/** The messages the probe wrote with Fastify's lines before. */
const BEFORE: Record<number, string> = { [FASTIFY_INCOMING]: 'incoming request', [FASTIFY_COMPLETED]: 'request completed' }

const plain = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null), fc.boolean())
const ownLine = fc.record({
  at: fc.double({ min: 0, max: 1e6, noNaN: true }),
  level: fc.constantFrom(10, 20, 30, 40, 50, 60),
  message: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  values: fc.option(fc.array(plain, { maxLength: 3 }), { nil: undefined }),
  fields: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), plain, { maxKeys: 3 }), { nil: undefined })
}).map(line => [line.at, line.level, line.message, line.values, line.fields])
const fastifyLine = fc.oneof(
  fc.tuple(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.string({ maxLength: 30 })).map(([at, url]) => [at, 30, FASTIFY_INCOMING, url]),
  fc.tuple(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1e4, noNaN: true })).map(([at, ms]) => [at, 30, FASTIFY_COMPLETED, ms])
)
const request = fc.record({
  lines: fc.array(fc.oneof(ownLine.map(line => ({ own: line })), fastifyLine.map(line => ({ fastify: line }))), { maxLength: 12 }),
  drawn: fc.constantFrom(true, false, null),
  omitted: fc.nat(5)
})

/** A request's logs as the probe keeps them now (`now`), and as it kept them before. */
function logsOf (script: typeof request extends fc.Arbitrary<infer S> ? S : never, now: boolean): RequestLogs {
  const lines: unknown[] = []
  for (const line of script.lines) {
    if ('own' in line) lines.push(...line.own)
    else {
      const [at, level, kind, value] = line.fastify as [number, number, number, unknown]
      lines.push(at, level, now ? undefined : BEFORE[kind], kind, value)
    }
  }
  return { drawn: script.drawn, fromLevel: 30, lines, bytes: 8 * lines.length, omitted: script.omitted, warnings: 0, errors: 0 }
}

const capture = takenCaptures(logsPanel)

t.test('what the writer rebuilds deep-equals the clone of the lines as they were kept before', async t => {
  let checked = 0
  fc.assert(fc.property(fc.array(request, { minLength: 1, maxLength: 5 }), scripts => {
    const others = [capture('no-logs', undefined), { kind: 'capture', token: 'rejected' } as unknown as RequestCapture]
    const batch: QueuedProfile[] = [...scripts.map((script, i) => capture(`t${i}`, logsOf(script, true))), ...others]
    const message = structuredClone({ batch })
    unpackLines(message.batch)
    const before = structuredClone({ batch: [...scripts.map((script, i) => capture(`t${i}`, logsOf(script, false))), ...others] })
    deepStrictEqual(message.batch, before.batch)
    checked += scripts.length
  }), { numRuns: 200 })
  t.ok(checked > 200, `${checked} generated requests`)
})

t.test('through a request: the probe keeps Fastify\'s lines without their message, and the panel shows it', async t => {
  let taken: RequestLogs | undefined
  const app = await buildTestApp(t, { PROFILER_LOG_LEVEL: 'info' }, app => {
    app.get('/test/logged', async request => {
      request.log.info({ code: 'A1' }, 'looking up %s', 'it')
      return { ok: true }
    })
    app.addHook('onResponse', async (request, reply) => { taken ??= logsProbe.take(request, reply) })
  })
  const response = await app.inject({ url: '/test/logged' })
  const lines = taken?.lines ?? []
  t.same([lines[2], lines[7], lines[12]], [undefined, 'looking up %s', undefined], 'only the request\'s own line keeps its message on the request thread')
  const logs = (await profileJson(app, response.headers['x-debug-token'] as string)).panels.logs
  t.same(logs.lines.map((line: { message: string }) => line.message), ['incoming request', 'looking up it', 'request completed'])
})
