// run-suite: shares a process
// The protobuf export writes a profile's spans straight from the profile (protobuf-profile.ts), with
// heads of spans encoded once and copied, its hook runs read as stored. Over generated profiles
// (hook runs as items, as runs naming their own sites or their process's, in ms or in µs, in order
// or not, never ended, naming a missing site; any Unicode in URLs, SQL,
// parameters, headers, log lines and exceptions; unparseable URLs; unknown methods; hook sites,
// statements and routes that come back with other kinds and engines; remote parents and tracestates;
// long texts that fill the writer's arenas), the request it makes decodes with the decoder generated
// from the official opentelemetry-proto definitions to the same spans as the trace of span objects
// the JSON encoding is made from (profile-spans.ts, its hooks read as the timeline reads them),
// written field by field (otlp-span-objects.ts).
// Random ids are compared by where they appear (the same span tree); the request's own ids as they are.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import type { ProfileRecord } from '../../plugins/profiler/profile.js'
import { MICROSECOND_RUNS_FORM, RUNS_FORM } from '../../plugins/profiler/panels/timeline/stored-form-constants.js'
import type { StoredSite, StoredSiteRuns, TimelineItem } from '../../plugins/profiler/panels/timeline/schema.js'
import { profileTrace } from '../../plugins/profiler/export/otlp/profile-spans.js'
import { hookItems, type ExportedPanels, type HookSource } from '../../plugins/profiler/export/otlp/span-content.js'
import { jsonEncoding, protobufEncoding, type EncodedTrace } from '../../plugins/profiler/export/otlp/trace-encoding.js'
import { decodeJson, decodeProtobuf, type DecodedRequest } from '../helpers/otlp-decode.js'
import { spanObjectFrames } from '../helpers/otlp-span-objects.js'

const hex = (length: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`))
const nonZero = (length: number): fc.Arbitrary<string> => hex(length).filter(id => /[1-9a-f]/.test(id))
const short = fc.string({ unit: 'grapheme', maxLength: 30 })
const text = fc.oneof({ weight: 6, arbitrary: short }, { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 3000 }) })
const ms = fc.double({ min: 0, max: 100_000, noNaN: true })
const param = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null))
const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true }),
  fc.constantFrom('http://127.0.0.1:3000/api/orders/7?code=[REDACTED]', 'https://x.test/é/ß?q=ü', 'http://h/p?', 'not a url'),
  text.map(path => `http://localhost:8080/${path}`)
)
const statement = fc.record({
  // A few SQL texts come back with other kinds (and engines, below): a head made for one is not another's.
  sql: fc.oneof(fc.constantFrom('SELECT 1', 'SELECT * FROM advisors WHERE code = ?', 'INSERT INTO t VALUES (@a, @b)'), text),
  kind: fc.constantFrom('SELECT', 'INSERT', 'PRAGMA', 'with', ''),
  params: fc.oneof(fc.array(param, { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 10 }), param, { maxKeys: 4 })),
  redacted: fc.boolean(),
  startMs: ms,
  durationMs: ms,
  rows: fc.option(fc.nat(), { nil: null }),
  error: fc.option(text, { nil: null })
})
const hook: fc.Arbitrary<TimelineItem> = fc.record({
  kind: fc.constantFrom('hook', 'handler') as fc.Arbitrary<'hook' | 'handler'>,
  type: fc.constantFrom('onRequest', 'preHandler', 'handler', 'onSend'),
  name: fc.oneof(fc.constantFrom('', 'auth', 'compress'), short),
  plugin: fc.constantFrom('', 'route', '@fastify/compress', 'profiler'),
  startMs: fc.double({ min: 0, max: 1000, noNaN: true }),
  durationMs: fc.double({ min: 0, max: 500, noNaN: true }),
  ended: fc.boolean()
})
const panels = fc.record({
  request: fc.record({
    requestHeaders: fc.oneof(fc.constant({}), fc.record({ 'user-agent': fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 2 })) })),
    trace: fc.record({ traceId: nonZero(32), parentSpanId: nonZero(16), traceState: fc.option(fc.stringMatching(/^([a-z][a-z0-9]{0,8}=[a-z0-9]{1,8})?$/), { nil: null }), source: fc.constant('traceparent' as const) })
  }, { requiredKeys: ['requestHeaders'] }),
  db: fc.record({ engine: fc.constantFrom('sqlite', 'postgres', null) as fc.Arbitrary<'sqlite' | 'postgres' | null>, queryCount: fc.nat(), queryMs: ms, statements: fc.array(statement, { maxLength: 6 }) }),
  logs: fc.record({ lines: fc.array(fc.record({ offsetMs: fc.double({ min: 0, max: 1500, noNaN: true }), level: fc.constantFrom('debug', 'info', 'warn', 'error', 'fatal'), message: text }), { maxLength: 4 }) }),
  exception: fc.option(fc.record({ name: short, message: text, chain: fc.array(fc.record({ name: short, message: short, stack: text }, { requiredKeys: ['name', 'message'] }), { maxLength: 2 }) }), { nil: null })
}, { requiredKeys: [] }) as fc.Arbitrary<ExportedPanels>
const record: fc.Arbitrary<ProfileRecord> = fc.record({
  // From 1970 to past 2100: the ns are above 2^53 for all but the first days.
  id: fc.tuple(fc.integer({ min: 0, max: 4_200_000_000_000 }), fc.nat(1023)).map(([startMs, slot]) => startMs * 1024 + slot),
  token: hex(6),
  parentToken: fc.constant(null),
  type: fc.constant('request' as const),
  ip: fc.oneof(fc.constant(''), fc.ipV4(), fc.ipV6()),
  method: fc.constantFrom('GET', 'POST', 'get', 'PURGE', 'QUERY', ''),
  url,
  statusCode: fc.integer({ min: 100, max: 599 }),
  durationMs: fc.double({ min: 0, max: 2000, noNaN: true }),
  route: fc.option(fc.oneof(fc.constantFrom('/monitor/MonitorPooling', '/api/orders/:id'), short), { nil: null }),
  panels: fc.constant('{}')
})
/** A process's sites: the same objects from profile to profile, as the writer's process record keeps them. */
const PROCESS_SITE_LISTS: StoredSite[][] = [
  [['onRequest', 'auth', 'profiler'], ['handler', 'poll', ''], ['onSend', '', '@fastify/compress'], ['preHandler', '', 'route']],
  [['handler', '', ''], ['onRequest', 'é', 'route'], ['onResponse', 'log', '']]
]
const site: fc.Arbitrary<StoredSite> = fc.tuple(fc.constantFrom('onRequest', 'preHandler', 'handler', 'onSend'), fc.oneof(fc.constantFrom('', 'auth'), short), fc.constantFrom('', 'route', '@fastify/compress'))
/** A run's start or duration: most often a few microseconds, as drawn (runs beginning in the same microsecond are common). */
const runMs = fc.oneof(fc.integer({ min: 0, max: 12 }).map(us => us / 1000), fc.double({ min: 0, max: 1000, noNaN: true }))
/** Runs naming places in `count` sites (a few past them: a missing site), some never ended; in the order they began or not. */
const runsFor = (count: number): fc.Arbitrary<number[]> => fc.tuple(
  fc.array(fc.tuple(fc.integer({ min: 0, max: count }), fc.boolean(), runMs, runMs), { maxLength: 8 }),
  fc.boolean()
).map(([runs, sorted]) => (sorted ? [...runs].sort((a, b) => a[2] - b[2] || b[3] - a[3]) : runs).flatMap(([place, ended, startMs, durationMs]) => [ended ? place : -1 - place, startMs, durationMs]))
const stored = { sendMs: 0, omittedHooks: 0, hooksTimed: true }
const hooks: fc.Arbitrary<HookSource> = fc.oneof(
  fc.array(hook, { maxLength: 8 }).map(items => ({ items })),
  fc.array(site, { maxLength: 5 }).chain(sites => runsFor(sites.length).map(runs => ({ stored: { v: RUNS_FORM as typeof RUNS_FORM, sites, runs, ...stored }, processSites: undefined }))),
  // Their process's sites, the runs in ms (the first form) or in whole µs (MICROSECOND_RUNS_FORM).
  fc.constantFrom(...PROCESS_SITE_LISTS).chain(sites => runsFor(sites.length).map(runs => ({ stored: { v: 3 as StoredSiteRuns['v'], runs, ...stored }, processSites: sites }))),
  fc.constantFrom(...PROCESS_SITE_LISTS).chain(sites => runsFor(sites.length).map(runs => ({
    stored: { v: MICROSECOND_RUNS_FORM as StoredSiteRuns['v'], runs: runs.map((value, at) => at % 3 === 0 ? value : Math.round(value * 1000)), ...stored },
    processSites: sites
  })))
)
const profile = fc.record({ record, panels, hooks })

/** The request's spans with the random ids named by where they first appear; the ids the profiles gave kept. */
function withIdsByPlace (request: DecodedRequest, given: Set<string>): DecodedRequest {
  const names = new Map<string, string>()
  const name = (id: string): string => {
    if (id === '' || given.has(id)) return id
    let named = names.get(id)
    if (named === undefined) {
      named = `#${names.size}`
      names.set(id, named)
    }
    return named
  }
  return { ...request, spans: request.spans.map(span => ({ ...span, traceId: name(span.traceId), spanId: name(span.spanId), parentSpanId: name(span.parentSpanId) })) }
}

t.test('protobuf: the spans written straight from profiles decode as the trace of span objects does', async t => {
  const scope = { name: 'scope', version: '1.2.3' }
  // One encoding over all runs: its arenas fill up, its heads and memos come back.
  const encoding = protobufEncoding({ 'service.name': 'profiles' }, scope)
  let bytes = 0
  fc.assert(fc.property(fc.array(profile, { minLength: 1, maxLength: 3 }), profiles => {
    // Each profile twice: the second time every head is one made before.
    const twice = [...profiles, ...profiles]
    const direct = twice.map(one => encoding.encode(one))
    const objects = twice.map(one => spanObjectFrames(profileTrace(one.record, one.panels, hookItems(one.hooks, one.record.route))))
    bytes += direct.reduce((sum, one) => sum + one.frames.length, 0)
    const given = new Set(twice.flatMap(({ panels }) => panels.request?.trace === undefined ? [] : [panels.request.trace.traceId, panels.request.trace.parentSpanId]))
    const decoded = decodeProtobuf(Buffer.concat(encoding.request(direct))).map(request => withIdsByPlace(request, given))
    const expected = decodeProtobuf(Buffer.concat(encoding.request(objects))).map(request => withIdsByPlace(request, given))
    const counts = [direct.map(one => one.spans), objects.map(one => one.spans)]
    if (isDeepStrictEqual(decoded, expected) && isDeepStrictEqual(counts[0], counts[1])) return true
    t.same(decoded, expected)
    t.same(counts[0], counts[1], 'the spans counted')
    return false
  }), { numRuns: 300 })
  t.ok(bytes > 4 * 256 * 1024, `${bytes} bytes encoded: past several arenas`)
})

t.test('profiles appended and taken in entries (the exporter\'s queue) decode as the same profiles encoded one by one; those unappended are gone', async t => {
  const scope = { name: 'scope', version: '1.2.3' }
  for (const [name, encodingOf, decode] of [['protobuf', protobufEncoding, decodeProtobuf], ['JSON', jsonEncoding, decodeJson]] as const) {
    // One encoding over all runs (its arenas fill up), one for the one-by-one encoding.
    const appending = encodingOf({ 'service.name': 'profiles' }, scope)
    const single = encodingOf({ 'service.name': 'profiles' }, scope)
    fc.assert(fc.property(fc.array(fc.record({ profile, kept: fc.boolean(), entryEnds: fc.boolean() }), { minLength: 1, maxLength: 6 }), steps => {
      const entries: EncodedTrace[] = []
      const kept: EncodedTrace[] = []
      let spans = 0
      for (const step of steps) {
        const before = appending.pendingBytes()
        const added = appending.append(step.profile)
        if (!step.kept) {
          appending.unappend(before)
          if (appending.pendingBytes() !== before) return false
          continue
        }
        kept.push(single.encode(step.profile))
        spans += added
        if (step.entryEnds) {
          entries.push(appending.take(appending.pendingBytes(), spans))
          spans = 0
        }
      }
      if (appending.pendingBytes() > 0) entries.push(appending.take(appending.pendingBytes(), spans))
      if (kept.length === 0) return entries.length === 0
      const given = new Set(steps.flatMap(({ profile }) => profile.panels.request?.trace === undefined ? [] : [profile.panels.request.trace.traceId, profile.panels.request.trace.parentSpanId]))
      const decoded = decode(Buffer.concat(appending.request(entries))).map(request => withIdsByPlace(request, given))
      const expected = decode(Buffer.concat(single.request(kept))).map(request => withIdsByPlace(request, given))
      const counts = [entries.reduce((sum, one) => sum + one.spans, 0), kept.reduce((sum, one) => sum + one.spans, 0)]
      if (isDeepStrictEqual(decoded, expected) && counts[0] === counts[1] && appending.pendingBytes() === 0) return true
      t.same(decoded, expected, name)
      t.same(counts[0], counts[1], `${name}: the spans counted`)
      return false
    }), { numRuns: 150 })
    t.pass(`${name}: appended, unappended and taken in entries as encoded one by one`)
  }
})
