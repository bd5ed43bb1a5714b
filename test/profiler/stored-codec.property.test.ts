// Issue 38: the panels are stored compactly (plugins/profiler/stored-codec.ts), not as JSON. What
// a profile shows must not change: a record reads back exactly as JSON.parse(JSON.stringify(...))
// would (values, key order), for any value and for the panels of generated captures (headers,
// bodies, statements with parameters, log lines with arguments, errors), with the secrets planted
// in them absent from what is stored.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import { Redactor } from '../../lib/redact.js'
import type { CapturedStatements } from '../../lib/statement-log.js'
import type { RequestCapture } from '../../plugins/profiler/collect/capture.js'
import { collectPanels, shapeProfile } from '../../plugins/profiler/collect/shape.js'
import { toStoredProfile, type ProfileRow } from '../../plugins/profiler/engine/profile-rows.js'
import { FASTIFY_COMPLETED, FASTIFY_INCOMING, type RequestLogs } from '../../plugins/profiler/panels/logs/probe.js'
import type { HookTimes } from '../../plugins/profiler/panels/timeline/hook-timing.js'
import { decodeStored, encodeStored } from '../../plugins/profiler/stored-codec.js'
import { toStoredPanels } from '../../plugins/profiler/stored-panels.js'
import { anyText, hostileText } from '../helpers/hostile.js'

/** What JSON.stringify and JSON.parse make of a value, and what the codec makes of it, are the same. */
function sameAsJson (value: unknown): string | null {
  const json = JSON.stringify(value)
  // JSON cannot hold the value itself (undefined at the top): the panels never are that.
  if (json === undefined) return null
  const decoded = decodeStored(encodeStored(value))
  if (!isDeepStrictEqual(decoded, JSON.parse(json))) return `decoded ${JSON.stringify(decoded)} for ${json}`
  if (JSON.stringify(decoded) !== json) return `keys or values out of order: ${JSON.stringify(decoded)} for ${json}`
  return null
}

const oddNumber = fc.constantFrom(0, -0, 1, -1, 0.1, 0.001, -0.001, 0.0005, 1e-7, 1 / 3, 0.1 + 0.2, 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 1e21, 1e300,
  Number.MAX_VALUE, Number.MIN_VALUE, Number.NaN, Infinity, -Infinity, Number('44.408860000000004'), 123456.789, 9007199254.7409)
const text = fc.oneof(anyText(30), hostileText(10, 4), fc.constantFrom('', 'a', 'ab', 'abc', '~1', '{', 'hook', '__proto__', 'constructor', '\u0000', '\uD800x', '😀'))
const key = fc.oneof(text, fc.constantFrom('__proto__', 'toString', '0', '1', '10', '-1', '01', 'a'))

t.test('any value reads back as JSON would give it: values, key order, numbers, odd strings and keys', async t => {
  const value = fc.letrec(tie => ({
    value: fc.oneof({ depthSize: 'small' },
      fc.constantFrom(null, true, false, undefined), oddNumber, fc.double(), fc.integer(), fc.double({ min: -1e6, max: 1e6 }).map(n => Math.round(n * 1000) / 1000),
      text, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 5 }),
    object: fc.dictionary(key, tie('value'), { maxKeys: 5 })
  })).value
  const check = (value: unknown): void => {
    const difference = sameAsJson(value)
    if (difference !== null) throw new Error(difference)
  }
  fc.assert(fc.property(value, check), { numRuns: 1000, seed: 3801 })
  fc.assert(fc.property(fc.anything({ withBoxedValues: true, withDate: true, withMap: true, withSet: true, withSparseArray: true, withTypedArray: true, withNullPrototype: true, withObjectString: true, withUnicodeString: true }),
    check), { numRuns: 600, seed: 3802 })
  t.equal(sameAsJson({ a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1], e: new Date(0), f: { toJSON: (k: string) => `key ${k}` } }), null, 'left out, nulled and toJSON as JSON does')
  t.equal(sameAsJson(JSON.parse('{"__proto__":{"polluted":1},"a":[{"__proto__":2}]}')), null, 'a "__proto__" key is an own property')
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'and no prototype was touched')
  t.throws(() => encodeStored({ n: 1n }), TypeError, 'a BigInt is refused, as JSON refuses it')
})

t.test('a record that is cut or spoiled is refused, never read as something else', async t => {
  const record = encodeStored({ request: { headers: { host: 'localhost', 'x-a': 'abc' } }, items: [['hook', 'onRequest', 0.123, true], ['hook', 'onSend', 1.5, false]] })
  for (let end = 2; end < record.length; end++) t.throws(() => decodeStored(record.slice(0, end)), SyntaxError, `cut at ${end}`)
  t.throws(() => decodeStored(`${record}x`), SyntaxError, 'characters after its end')
  t.throws(() => decodeStored(`~9${record.slice(2)}`), SyntaxError, 'an unknown version')
  t.same(decodeStored('{"a":1}'), { a: 1 }, 'JSON (a profile stored before the compact records) reads as JSON')
})

// --- The panels of generated captures -------------------------------------------------------

const SECRET = 'planted-Secret-7f3a9c21d4'
const redactor = new Redactor({ values: [SECRET] })
/** A value carrying the planted secret, or not. */
const maybeSecret = fc.oneof(hostileText(12, 3), fc.constantFrom(SECRET, `x ${SECRET} y`, `a=${SECRET}`))
const plainValue = fc.oneof(maybeSecret, fc.integer(), fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.boolean(), fc.constant(null))
const fields = fc.dictionary(fc.oneof(fc.constantFrom('code', 'password', 'note', 'token'), hostileText(6, 2)), plainValue, { maxKeys: 4 })

const HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'handler', 'onSend', 'onResponse', 'onError']
const SITES = HOOKS.flatMap(hook => [{ hook, name: '', plugin: 'profiler' }, { hook, name: hook === 'handler' ? '' : 'named', plugin: 'route' }])
const SQL = ['SELECT 1 AS ok', 'SELECT * FROM advisors WHERE code = ?', 'UPDATE advisors SET last_seen_at = ?, password = ? WHERE code = ?', 'SELECT * FROM t WHERE a = $1 AND secret = $2', "SELECT 'password=x'"]

const statements = fc.record({
  engine: fc.constantFrom('sqlite', 'postgres', null),
  statements: fc.array(fc.record({
    sql: fc.constantFrom(...SQL),
    params: fc.oneof(fc.array(plainValue, { maxLength: 3 }), fields, fc.constant(new Date(1_700_000_000_000)) as fc.Arbitrary<unknown>),
    startMs: fc.double({ min: 0, max: 50, noNaN: true }),
    durationMs: fc.double({ min: 0, max: 20, noNaN: true }),
    rows: fc.option(fc.nat(100), { nil: null }),
    error: fc.option(maybeSecret, { nil: null })
  }), { maxLength: 4 }),
  count: fc.nat(10),
  totalMs: fc.double({ min: 0, max: 60, noNaN: true })
}) as fc.Arbitrary<CapturedStatements>

const logLine = fc.oneof(
  fc.tuple(fc.double({ min: 0, max: 60, noNaN: true }), fc.constant(30), fc.constant('incoming request'), fc.constant(FASTIFY_INCOMING), maybeSecret.map(s => `/p?q=${s}`)),
  fc.tuple(fc.double({ min: 0, max: 60, noNaN: true }), fc.constant(30), fc.constant('request completed'), fc.constant(FASTIFY_COMPLETED), fc.double({ min: 0, max: 60, noNaN: true })),
  fc.tuple(fc.double({ min: 0, max: 60, noNaN: true }), fc.constantFrom(10, 20, 30, 35, 40, 50, 60), fc.option(fc.constantFrom('user %s', 'code=%s and %d', 'token=%s', 'plain message', '%j'), { nil: undefined }),
    fc.option(fc.array(plainValue, { minLength: 1, maxLength: 2 }), { nil: undefined }), fc.option(fields, { nil: undefined }))
)
const logs = fc.record({
  drawn: fc.constantFrom(true, false, null),
  fromLevel: fc.constant(30),
  lines: fc.array(logLine, { maxLength: 4 }).map(lines => lines.flat()),
  bytes: fc.constant(0),
  omitted: fc.nat(3),
  warnings: fc.nat(3),
  errors: fc.nat(3)
}) as fc.Arbitrary<RequestLogs>

const hookTimes = fc.oneof(fc.constant(false as const), fc.record({
  runs: fc.array(fc.tuple(fc.constantFrom(...SITES), fc.double({ min: 0, max: 50, noNaN: true }), fc.oneof(fc.double({ min: 0, max: 10, noNaN: true }), fc.constant(Number.NaN))), { maxLength: 12 }),
  omitted: fc.nat(2)
}).map(({ runs, omitted }): HookTimes => ({
  sites: runs.map(([site]) => site),
  times: runs.flatMap(([, start, length]) => [1000 + start, 1000 + start + length]),
  omitted
})))

const capture = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT'),
  path: fc.constantFrom('/monitor/MonitorPooling', '/ccenter/getConseillerByCode', '/probe/x.php'),
  query: fc.option(maybeSecret, { nil: undefined }),
  status: fc.constantFrom(200, 201, 400, 404, 500, 503),
  routed: fc.boolean(),
  params: fields,
  body: fc.oneof(fc.constant(undefined), fields, fc.jsonValue({ maxDepth: 2 })),
  unparsed: fc.option(fc.record({ text: maybeSecret, truncated: fc.boolean(), sizeKnown: fc.boolean(), lossy: fc.boolean() }), { nil: undefined }),
  requestHeaders: fc.dictionary(fc.stringMatching(/^x-[a-z]{1,8}$/), maybeSecret, { maxKeys: 3 }),
  authorization: fc.option(fc.constantFrom(`Bearer ${SECRET}`, 'Basic dXNlcjpwYXNz'), { nil: undefined }),
  responseBody: fc.option(fc.oneof(fields, fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
  error: fc.option(fc.record({ name: fc.constantFrom('Error', 'TypeError', 'NotFoundHttpError'), message: maybeSecret, stack: fc.option(maybeSecret, { nil: undefined }) }), { nil: null }),
  total: fc.double({ min: 0.001, max: 80, noNaN: true }),
  handler: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  send: fc.double({ min: 0, max: 1, noNaN: true }),
  taken: fc.option(fc.tuple(statements, logs, hookTimes), { nil: undefined })
}).map((g): RequestCapture => {
  const sendStartMs = g.total * g.send
  const handlerStartMs = g.handler === null ? null : sendStartMs * g.handler
  const route = g.routed ? g.path : null
  return {
    kind: 'capture',
    id: 1_800_000_000_000 * 1024,
    token: 'abc123',
    ip: '127.0.0.1',
    method: g.method,
    rawUrl: `http://localhost${g.path}${g.query === undefined ? '' : `?q=${encodeURIComponent(g.query.replace(/[\uD800-\uDFFF]/g, '?'))}`}`,
    statusCode: g.status,
    originMs: 1000,
    totalMs: g.total,
    handlerStartMs,
    sendStartMs,
    route,
    matched: route === null ? null : { route, method: g.method },
    routingFailure: route === null ? { outcome: 'not-found', method: g.method, path: g.path, twinPath: null, allowedMethods: [] } : null,
    params: g.params,
    query: g.query === undefined ? {} : { q: g.query },
    body: g.body,
    bodyBytes: 42,
    shapedBody: undefined,
    unparsedBody: g.unparsed,
    requestHeaders: { host: 'localhost', 'content-type': 'application/json', ...g.requestHeaders, ...(g.authorization === undefined ? {} : { authorization: g.authorization }) },
    responseHeaders: { 'content-type': 'application/json; charset=utf-8', 'x-debug-token': 'abc123', 'x-note': `n ${SECRET}` },
    responseText: g.responseBody === undefined ? undefined : JSON.stringify(g.responseBody),
    error: g.error === null ? null : { name: g.error.name, message: g.error.message, chain: [{ name: g.error.name, message: g.error.message, ...(g.error.stack === undefined ? {} : { stack: g.error.stack }) }] },
    heapUsedBytes: 35_800_808,
    droppedProfiles: 0,
    ...(g.taken === undefined ? {} : { taken: g.taken })
  }
})

/** The row a store gives back for a profile, its panels as `panels` holds them. */
function rowOf (capture: RequestCapture, url: string, counts: { queryCount: number, queryMs: number, logWarnings: number, logErrors: number }, panels: string): ProfileRow {
  return {
    id: capture.id,
    token: capture.token,
    ip: capture.ip,
    method: capture.method,
    url,
    status: capture.statusCode,
    duration_ms: Math.round(capture.totalMs * 1000) / 1000,
    deployment: 'here',
    queries: counts.queryCount,
    query_ms: counts.queryMs,
    log_warnings: counts.logWarnings,
    log_errors: counts.logErrors,
    parent_token: null,
    type: 'request',
    route: capture.route,
    panels,
    process_panels: null
  }
}

t.test('a generated capture reads back from its compact record exactly as from the JSON stored before, and no planted secret is stored', async t => {
  let withSecret = 0
  fc.assert(fc.property(capture, capture => {
    const record = shapeProfile(capture, redactor)
    // Today's path before the compact records: the same collectors, the panels as JSON.
    const collected = collectPanels(capture, redactor)
    const json = JSON.stringify(toStoredPanels(collected.panels))
    const counts = { queryCount: record.queryCount ?? 0, queryMs: record.queryMs ?? 0, logWarnings: record.logWarnings ?? 0, logErrors: record.logErrors ?? 0 }
    const before = toStoredProfile(rowOf(capture, collected.url, counts, json))
    const now = toStoredProfile(rowOf(capture, record.url, counts, record.panels))
    if (!isDeepStrictEqual(now, before) || JSON.stringify(now) !== JSON.stringify(before)) {
      throw new Error(`shown differently:\n${JSON.stringify(now)}\n${JSON.stringify(before)}`)
    }
    if (JSON.stringify(capture).includes(SECRET)) withSecret++
    if (record.panels.includes(SECRET) || record.url.includes(SECRET)) throw new Error(`the planted secret is stored: ${record.panels}`)
  }), { numRuns: 500, seed: 3803 })
  t.ok(withSecret > 150, `${withSecret} captures held the planted secret`)
})
