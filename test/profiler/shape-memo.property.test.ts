// run-suite: shares a process
// The writer thread's redactor remembers what it judged (lib/bounded-memo.ts): for generated
// captures (headers, bodies, statements and their parameters, log lines, errors, response texts,
// with JWTs, Bearer credentials, card numbers, secret-named fields, URL query values and a
// configured secret planted, drawn from a small pool so that texts come back as they do in a real
// mix), shaping with the memo gives the same profile, byte for byte, as shaping without it; and
// whatever the values, the memo stays within its bounds.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import { HEADER_MEMO, NAME_MEMO, Redactor, TEXT_MEMO, type RedactionRules } from '../../lib/redact.js'
import type { RequestCapture } from '../../plugins/profiler/capture/capture.js'
import { FASTIFY_COMPLETED, FASTIFY_INCOMING } from '../../plugins/profiler/panels/logs/probe.js'
import { fromStoredPanels, parseStoredPanels } from '../../plugins/profiler/panels/stored-panels.js'
import { shapeProfile } from '../../plugins/profiler/writer/shape.js'
import { hostileText } from '../helpers/hostile.js'

const CONFIGURED_SECRET = 'Zq9configuredSecret42'
const RULE_SETS: RedactionRules[] = [
  {},
  { headers: ['x-internal-ref'], fields: ['code', 'ssn'], values: [CONFIGURED_SECRET] }
]
/** One memo per rule set across every run (the writer's lives as long as the thread): hits from earlier runs count too. */
const memoised = RULE_SETS.map(rules => new Redactor(rules, { memo: true }))

const secretValue = fc.stringMatching(/^[A-Za-z0-9]{8,12}$/).map(s => `Zq9${s}`)
/** Texts with a secret planted in each form the redactor removes. */
const planted = fc.oneof(
  secretValue.map(s => `Bearer ${s}`),
  secretValue.map(s => `eyJhbGciOiJIUzI1NiJ9.${s}.c2lnbmF0dXJl`),
  fc.constantFrom('4111111111111111', '5555 5555 5555 4444', '3782-822463-10005', 'card 4111-1111-1111-1111 used'),
  secretValue.map(s => `login failed password=${s} for user`),
  secretValue.map(s => `http://user:${s}@db.example/x`),
  secretValue.map(s => `/search?q=1&access_token=${s}&page=2`),
  fc.constant(`the secret ${CONFIGURED_SECRET} in a message`),
  fc.constant(`/x?k=${encodeURIComponent(CONFIGURED_SECRET)}`)
)
/** What a real mix repeats: a content type, SQL, URLs, Fastify's messages. */
const common = fc.constantFrom(
  'application/json; charset=utf-8', 'keep-alive', 'SELECT * FROM advisors WHERE code = ?', 'UPDATE users SET password = ? WHERE id = ?',
  'SELECT * FROM t WHERE token = $1 AND id = $2', 'http://127.0.0.1:3000/monitor/MonitorPooling', 'incoming request', 'request completed',
  'db;dur=0.081;desc="1 query", app;dur=33.051', 'user %s logged in with %s', 'No route found for "GET /x?password=a"',
  // Secret under one rule set only (PROFILER_REDACT_FIELDS: code, ssn): a memo shared across rules would keep one in clear.
  'lookup code=ADV1023 done', '/advisors?code=ADV1023&ssn=078-05-1120'
)
const piece = fc.oneof(planted, common, hostileText(20, 3), fc.string({ maxLength: 12 }))
/** The pool a batch's texts are drawn from: small, so texts repeat within a batch and across runs. */
const pool = fc.array(piece, { minLength: 1, maxLength: 8 })
const name = fc.oneof(fc.constantFrom('password', 'code', 'api_key', 'x-api-key', 'authorization', 'cookie', 'ssn', 'x-internal-ref', 'name', 'id', 'x-Auth-Token', 'author'), fc.string({ maxLength: 8 }))
const at = fc.nat(100)

/** A capture's shape with its texts as indices into the pool. */
const captureShape = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  url: at,
  query: fc.array(fc.tuple(name, at), { maxLength: 3 }),
  headers: fc.array(fc.tuple(name, at), { maxLength: 5 }),
  responseHeaders: fc.array(fc.tuple(name, at), { maxLength: 3 }),
  body: fc.option(fc.array(fc.tuple(name, fc.oneof(at.map(i => ({ i })), fc.integer(), fc.constant(4111111111111111))), { maxLength: 4 }), { nil: undefined }),
  response: fc.option(fc.array(fc.tuple(name, at), { maxLength: 3 }), { nil: undefined }),
  statements: fc.array(fc.record({ sql: at, params: fc.array(fc.oneof(at.map(i => ({ i })), fc.integer(), fc.constant(null)), { maxLength: 3 }), error: fc.option(at, { nil: null }) }), { maxLength: 4 }),
  lines: fc.array(fc.record({ message: at, args: fc.array(at, { maxLength: 2 }), fields: fc.option(fc.array(fc.tuple(name, at), { maxLength: 2 }), { nil: undefined }) }), { maxLength: 4 }),
  error: fc.option(fc.tuple(at, at), { nil: null })
})

type CaptureShape = typeof captureShape extends fc.Arbitrary<infer S> ? S : never

/** A capture shape with nothing in it but its URL (the tests add what they check). */
const NOTHING: CaptureShape = { method: 'GET', url: 0, query: [], headers: [], responseHeaders: [], body: undefined, response: undefined, error: null, statements: [], lines: [] }

function captureOf (texts: string[], shape: CaptureShape, n: number): RequestCapture {
  const text = (i: number): string => texts[i % texts.length] ?? ''
  const object = (pairs: Array<[string, number]>): Record<string, string> => Object.fromEntries(pairs.map(([key, i]) => [key, text(i)]))
  const value = (v: { i: number } | number | null): unknown => v !== null && typeof v === 'object' ? text(v.i) : v
  const origin = 1000
  const lines: unknown[] = [origin, 30, 'incoming request', FASTIFY_INCOMING, `/p${n}`]
  for (const line of shape.lines) lines.push(origin + 1, 30, text(line.message), line.args.map(text), line.fields === undefined ? undefined : object(line.fields))
  lines.push(origin + 2, 30, 'request completed', FASTIFY_COMPLETED, 2.5)
  const query = object(shape.query)
  return {
    kind: 'capture',
    id: n,
    token: `t${n}`,
    ip: '127.0.0.1',
    method: shape.method,
    rawUrl: `http://127.0.0.1:3000/p${text(shape.url)}?${new URLSearchParams(query).toString()}`,
    statusCode: shape.error === null ? 200 : 500,
    originMs: origin,
    totalMs: 2.5,
    handlerStartMs: 0.5,
    sendStartMs: 2,
    route: '/p',
    matched: { route: '/p', method: shape.method },
    routingFailure: null,
    params: {},
    query,
    body: shape.body === undefined ? undefined : Object.fromEntries(shape.body.map(([key, v]) => [key, value(v)])),
    bodyBytes: 10,
    shapedBody: undefined,
    unparsedBody: undefined,
    requestHeaders: object(shape.headers),
    responseHeaders: { ...object(shape.responseHeaders), 'x-debug-token': `t${n}` },
    responseText: shape.response === undefined ? undefined : JSON.stringify(object(shape.response)),
    error: shape.error === null ? null : { name: 'Error', message: text(shape.error[0]), chain: [{ name: 'Error', message: text(shape.error[0]), stack: text(shape.error[1]) }] },
    heapUsedBytes: 1,
    droppedProfiles: 0,
    taken: [
      { engine: 'sqlite', statements: shape.statements.map(s => ({ sql: text(s.sql), params: s.params.map(value), startMs: origin + 1, durationMs: 0.25, rows: 1, error: s.error === null ? null : text(s.error) })), count: shape.statements.length, totalMs: 1 },
      { drawn: true, fromLevel: 30, lines, bytes: 64, omitted: 0, warnings: 0, errors: 0 },
      undefined
    ]
  }
}

t.test('shaping with the memo gives the same profile as without it, secrets planted', async t => {
  let shaped = 0
  fc.assert(fc.property(pool, fc.array(captureShape, { minLength: 1, maxLength: 12 }), (texts, shapes) => {
    shapes.forEach((shape, n) => {
      const capture = captureOf(texts, shape, n)
      // Under each rule set: the same texts reach each memo.
      RULE_SETS.forEach((rules, r) => {
        const plain = shapeProfile(capture, new Redactor(rules))
        const remembered = shapeProfile(capture, memoised[r] ?? new Redactor(rules, { memo: true }))
        const again = shapeProfile(capture, memoised[r] ?? new Redactor(rules, { memo: true }))
        if (JSON.stringify(remembered.record) !== JSON.stringify(plain.record)) throw new Error(`record differs:\n${JSON.stringify(remembered.record)}\n${JSON.stringify(plain.record)}`)
        if (JSON.stringify(again.record) !== JSON.stringify(plain.record)) throw new Error('record differs the second time')
        if (!isDeepStrictEqual(remembered.panels, plain.panels)) throw new Error('collected panels differ')
        shaped++
      })
    })
  }), { numRuns: 200, seed: 3801 })
  t.ok(shaped > 300, `${shaped} generated captures shaped alike`)
  // The planted secrets went through the memo and came out redacted.
  const redactor = memoised[1] ?? new Redactor()
  for (let i = 0; i < 2; i++) {
    t.equal(redactor.text(`x password=hunter22 ${CONFIGURED_SECRET}`), 'x password=%5Bredacted%5D [redacted]', `a hit (${i}) is redacted as the first time`)
    t.equal(redactor.url(`/s?code=ADV1&q=${CONFIGURED_SECRET}`), '/s?code=%5Bredacted%5D&q=%5Bredacted%5D')
  }
})

// 30,000 rounds (was 100,000) still offer each memo several times its bounds: 60,000 distinct
// texts and 90,000 names against 10,000 entries each, ~3.7 M characters of texts against 1 MiB.
t.test('the memo stays within its bounds under 30k rounds of distinct values, names and texts', async t => {
  const redactor = new Redactor({}, { memo: true })
  const maxEntries = TEXT_MEMO.entries + NAME_MEMO.entries + HEADER_MEMO.entries
  const maxChars = TEXT_MEMO.chars + NAME_MEMO.chars + HEADER_MEMO.chars
  let worst = { entries: 0, chars: 0 }
  const check = (): void => {
    const size = redactor.memoSize()
    worst = { entries: Math.max(worst.entries, size.entries), chars: Math.max(worst.chars, size.chars) }
  }
  for (let i = 0; i < 30_000; i++) {
    // Each takes the full scan ('='), with a distinct field name; lengths up to beyond the longest key remembered.
    const long = i % 10 === 0 ? 'x'.repeat(i % 2500) : ''
    redactor.fields({ [`field${i}`]: `a=${i}${long}`, [`${long.slice(0, 200)}k${i}`]: i })
    redactor.headers({ [`x-h${i}`]: `v=${i}` })
    check()
  }
  t.ok(worst.entries <= maxEntries, `at most ${maxEntries} entries (held ${worst.entries} at most)`)
  t.ok(worst.chars <= maxChars, `at most ${maxChars} characters (held ${worst.chars} at most)`)
  t.ok(worst.entries >= TEXT_MEMO.entries / 2, 'and it did remember (the bound is what held it)')
  fc.assert(fc.property(fc.array(hostileText(3000, 4), { maxLength: 20 }), texts => {
    for (const text of texts) redactor.text(`=${text}`)
    check()
    return worst.entries <= maxEntries && worst.chars <= maxChars
  }), { numRuns: 50, seed: 3802 })
  t.pass('and under generated hostile texts')
})

t.test('statements and messages with any whitespace: the timeline flattens and the db panel names them as the expressions do', async t => {
  const spaces = fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\v', '\f', '\u00a0', '\u1680', '\u2003', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u180e', '\u200b')
  const word = fc.oneof(fc.constantFrom('SELECT', 'select', 'with', 'x', '*', '(1)', 'é', '中', '😀', '?', '$1', '--c'), fc.string({ maxLength: 4 }))
  const text = fc.array(fc.oneof(spaces, word), { maxLength: 14 }).map(parts => parts.join(''))
  const flat = (s: string): string => {
    const f = s.replace(/\s+/g, ' ').trim()
    return f.length > 160 ? `${f.slice(0, 159)}…` : f
  }
  const redactor = new Redactor()
  fc.assert(fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), text, (sqls, message) => {
    const shape = {
      ...NOTHING,
      statements: sqls.map((_sql, i) => ({ sql: i + 1, params: [], error: null })),
      lines: [{ message: 0, args: [], fields: undefined }]
    }
    const capture = captureOf([message, ...sqls], shape, 1)
    // As a reader shows them: the timeline is built when read (panels/timeline/collect.ts).
    const { record } = shapeProfile(capture, redactor)
    const row = { method: record.method, url: record.url, route: record.route, status: record.statusCode, durationMs: record.durationMs, queries: record.queryCount ?? 0, queryMs: record.queryMs ?? 0 }
    const panels = fromStoredPanels(parseStoredPanels(record.panels), row) as Record<string, any>
    const statements: Array<{ sql: string, kind: string }> = panels.db.statements
    const items: Array<{ kind: string, name: string }> = panels.timeline.items
    statements.forEach(statement => {
      const kind = /^\s*([A-Za-z]+)/.exec(statement.sql)?.[1]?.toUpperCase() ?? ''
      if (statement.kind !== kind) throw new Error(`kind ${JSON.stringify(statement.kind)} of ${JSON.stringify(statement.sql)}, not ${JSON.stringify(kind)}`)
    })
    const names = items.filter(item => item.kind === 'statement').map(item => item.name)
    const expected = statements.map(statement => flat(statement.sql))
    if (JSON.stringify(names) !== JSON.stringify(expected)) throw new Error(`${JSON.stringify(names)} not ${JSON.stringify(expected)}`)
    const logged = panels.timeline.logs.map((line: { message: string }) => line.message)
    const expectedLines = panels.logs.lines.map((line: { message: string }) => flat(line.message))
    if (JSON.stringify(logged) !== JSON.stringify(expectedLines)) throw new Error(`${JSON.stringify(logged)} not ${JSON.stringify(expectedLines)}`)
    return true
  }), { numRuns: 1000, seed: 3803 })
  t.pass('1000 generated statements and messages')
})
