// run-suite: shares a process
// Every panel's data, as the profile page's JSON gives it back, is exactly what the panel's schema
// declares (panels/panel-schemas.ts: additionalProperties false, so a field a collector adds without declaring it
// fails here), for generated requests: methods, paths (matched, not found, trailing slash, 405),
// query strings, JSON, form, malformed and untyped bodies, headers, handler errors with causes,
// and requests Node's HTTP parser rejects. The list of panels is the index: a new panel is checked
// without touching this file.
import fc from 'fast-check'
import t from 'tap'
import { Value } from 'typebox/value'
import { panels } from '../../plugins/profiler/panels/index.js'
import { PANEL_SCHEMAS } from '../../plugins/profiler/panels/panel-schemas.js'
import { buildTestApp, listeningApp } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { hostileText } from '../helpers/hostile.js'
import { profileJson } from '../helpers/profiler.js'
import { rawAnswer } from '../helpers/raw-http.js'

/** Each panel of the profile checked against its schema: the failures, each with the schema's errors. */
function schemaFailures (profile: Record<string, any>): string[] {
  const failures: string[] = []
  for (const panel of panels) {
    const data: unknown = profile.panels[panel.name]
    const schema = PANEL_SCHEMAS[panel.name]
    if (schema === undefined) failures.push(`${panel.name}: no schema in panels/panel-schemas.ts`)
    else if (!Value.Check(schema, data)) {
      failures.push(`${panel.name}: ${JSON.stringify(Value.Errors(schema, data).slice(0, 3))} in ${JSON.stringify(data).slice(0, 2000)}`)
    }
  }
  return failures
}

/** Throws (fast-check then shrinks the request and reports it) when a panel is not what its schema declares. */
function assertDeclared (profile: Record<string, any>, what: string): void {
  const failures = schemaFailures(profile)
  if (failures.length > 0) throw new Error(`${what}: a panel's data is not what its schema declares:\n${failures.join('\n')}`)
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']
const PATHS = [
  '/ccenter/getConseillerByCode', '/monitor/MonitorPooling', '/monitor/MonitorPooling/', '/test/items/7', '/test/boom',
  '/test/text', '/robots.txt', '/nowhere/', '/%E0%A4%A', '/a//b/../c'
]

const body = fc.oneof(
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }).map(value => ({ type: 'application/json', payload: JSON.stringify(value) })),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 }), { maxKeys: 4 })
    .map(fields => ({ type: 'application/x-www-form-urlencoded', payload: new URLSearchParams(fields).toString() })),
  hostileText(20, 3).map(text => ({ type: 'application/json', payload: `{"a":${text}` })),
  hostileText(20, 3).map(text => ({ type: 'text/plain', payload: text })),
  hostileText(20, 3).map(text => ({ type: undefined, payload: text }))
)

// Header names as HTTP allows them, values of visible ASCII and spaces (what inject() sends).
const headers = fc.dictionary(
  fc.stringMatching(/^x-[a-z0-9-]{1,16}$/),
  fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,30}$/),
  { maxKeys: 4 }
)

const request = fc.record({
  method: fc.constantFrom(...METHODS),
  path: fc.constantFrom(...PATHS),
  query: fc.dictionary(hostileText(10, 2), hostileText(10, 2), { maxKeys: 3 }).map(values => new URLSearchParams(values).toString()),
  body,
  headers,
  authorization: fc.option(fc.constantFrom('Bearer abc.def', 'Basic dXNlcjpwYXNz'), { nil: undefined })
})

t.test('every panel of every generated request is what its schema declares', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/items/:id', async req => ({ id: (req.params as { id: string }).id }))
    app.get('/test/boom', async () => { throw new TypeError('kaput', { cause: new RangeError('deeper') }) })
    app.get('/test/text', async (_req, reply) => reply.header('x-count', 3).type('text/plain').send('plain'))
  })
  let checked = 0
  await fc.assert(fc.asyncProperty(request, async ({ method, path, query, body, headers, authorization }) => {
    const res = await app.inject({
      method: method as 'GET',
      url: query === '' ? path : `${path}?${query}`,
      headers: {
        ...headers,
        ...(authorization === undefined ? {} : { authorization }),
        ...(body?.type === undefined ? {} : { 'content-type': body.type })
      },
      ...(body === null ? {} : { payload: body.payload })
    })
    checked++
    assertDeclared(await profileJson(app, tokenOf(res)), `${method} ${path}?${query} -> ${res.statusCode}`)
  }), { numRuns: 150, seed: 2301 })
  t.pass(`${checked} generated requests, every panel checked`)
})

t.test('a request body too large, and requests Node\'s parser rejects: every panel is what its schema declares', async t => {
  const { app, address } = await listeningApp(t)
  const large = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ a: 'x'.repeat(1024 * 1024) }) })
  t.same(schemaFailures(await profileJson(app, tokenOf(large))), [], 'a body over 1 MiB: every panel as declared')
  const rejected = [
    'GET /monitor/MonitorPooling HTTP/1.2\r\nHost: localhost\r\n\r\n',
    'POST /monitor/MonitorPooling HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    'POST /monitor/MonitorPooling HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'
  ]
  for (const bytes of rejected) {
    const answer = await rawAnswer(address, bytes)
    const token = answer.headers['x-debug-token']
    if (token === undefined) {
      t.fail(`no profile for ${JSON.stringify(bytes)}`)
      continue
    }
    t.same(schemaFailures(await profileJson(app, token)), [], `${JSON.stringify(bytes)}: every panel as declared`)
  }
})

t.test('the check fails on a field a schema does not declare, and on a missing one', async t => {
  t.same(Object.keys(PANEL_SCHEMAS).sort(), panels.map(panel => panel.name).sort(), 'a schema for each panel, none for another name')
  for (const panel of panels) {
    t.notOk(Value.Check(PANEL_SCHEMAS[panel.name] ?? {}, { undeclaredField: 1 }), `${panel.name}: an object of an undeclared field`)
  }
  const app = await buildTestApp(t)
  const profile = await profileJson(app, tokenOf(await app.inject({ url: '/robots.txt' })))
  t.same(schemaFailures(profile), [], 'a real profile passes')
  const withExtra = { ...profile, panels: { ...profile.panels, request: { ...profile.panels.request, extra: true } } }
  t.match(schemaFailures(withExtra), [/^request: /], 'one more field in the request panel fails')
  const { heapUsedBytes: _heap, ...performance } = profile.panels.performance
  t.match(schemaFailures({ ...profile, panels: { ...profile.panels, performance } }), [/^performance: /], 'one field fewer in the performance panel fails')
})
