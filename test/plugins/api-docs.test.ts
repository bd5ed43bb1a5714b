// run-suite: shares a process
import { Validator } from '@seriousme/openapi-schema-validator'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildTestApp, postJson } from '../helpers/app.js'
import { listProfiles } from '../helpers/profiler.js'

type Schema = { required?: string[], anyOf?: Schema[], properties?: Record<string, unknown> }
type Operation = { responses: Record<string, { content?: Record<string, { schema: Schema }>, headers?: Record<string, unknown> }>, requestBody?: { required: boolean, content: Record<string, unknown> } }
type OpenApiDocument = { openapi: string, paths: Record<string, Record<string, Operation>> }

/** Routes outside the business API's contract: the profiler's pages and the documentation itself. */
const OPERATOR_ROUTE = /^\/(_profiler|docs)(\/|$)|^\/openapi\.json$/

/**
 * Every method and path the app serves, from Fastify's own route table (printRoutes draws it as a
 * tree: each line is a segment under the line above it with less indentation).
 */
function appRoutes (app: FastifyInstance): Array<{ method: string, path: string }> {
  const routes: Array<{ method: string, path: string }> = []
  const parents: Array<{ depth: number, path: string }> = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│├└─\s]*)(\S.*?) \(([A-Z, ]+)\)$/.exec(line)
    if (match === null) continue
    const [, indent = '', segment = '', methods = ''] = match
    const depth = indent.length
    while (parents.length > 0 && (parents.at(-1)?.depth ?? 0) >= depth) parents.pop()
    const path = (parents.at(-1)?.path ?? '') + segment
    parents.push({ depth, path })
    for (const method of methods.split(', ')) routes.push({ method, path })
  }
  return routes
}

async function openApiDocument (app: FastifyInstance): Promise<OpenApiDocument> {
  const res = await app.inject('/openapi.json')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  return res.json()
}

/** The error shape is exactly what the document says: the same keys, all of them required. */
function assertErrorShape (t: Test, body: Record<string, unknown>, schema: Schema | undefined, status: number): void {
  const shape = schema?.anyOf?.find(branch => branch.required?.includes('statusCode')) ?? schema
  t.same(Object.keys(body).sort(), [...(shape?.required ?? [])].sort(), `${status}: the body has the documented keys`)
  t.equal(body.statusCode, status)
}

t.test('GET /openapi.json is a valid OpenAPI 3.1 document listing every business route of the app', async t => {
  const app = await buildTestApp(t)
  const document = await openApiDocument(app)
  t.equal(document.openapi, '3.1.0')
  const validator = new Validator()
  const result = await validator.validate(document as never)
  t.same(result.errors, undefined, 'no schema error')
  t.equal(result.valid, true)
  t.equal(validator.version, '3.1')

  const business = appRoutes(app).filter(route => route.method !== 'HEAD' && !OPERATOR_ROUTE.test(route.path))
  t.same(business.map(route => `${route.method} ${route.path}`).sort(), ['POST /ccenter/getConseillerByCode', 'POST /monitor/MonitorPooling'])
  // A route added later is in this list too: it must be documented, or this test names it.
  for (const { method, path } of business) t.ok(document.paths[path]?.[method.toLowerCase()], `${method} ${path} is documented`)
  const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map(method => `${method.toUpperCase()} ${path}`))
  t.same(documented.sort(), business.map(route => `${route.method} ${route.path}`).sort(), 'nothing else: no operator route, no HEAD twin')
  t.ok(appRoutes(app).some(route => route.path === '/_profiler/:token'), 'the route table was read (operator routes are in it)')
})

t.test('each operation documents its body and every status it answers, errors with the error shape', async t => {
  const app = await buildTestApp(t)
  const { paths } = await openApiDocument(app)
  const lookup = paths['/ccenter/getConseillerByCode']?.post
  const poll = paths['/monitor/MonitorPooling']?.post
  t.same(Object.keys(lookup?.responses ?? {}).sort(), ['200', '400', '404', '405', '413', '415', '503'])
  t.same(Object.keys(poll?.responses ?? {}).sort(), ['200', '400', '404', '405', '413', '415', '503'])
  for (const operation of [lookup, poll]) {
    t.same(Object.keys(operation?.requestBody?.content ?? {}), ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'])
    t.ok(operation?.responses['405']?.headers?.allow, '405 documents its Allow header')
  }
  t.equal(lookup?.requestBody?.required, true, 'the lookup needs a code')
  t.equal(poll?.requestBody?.required, false, 'the poll takes an empty body')

  // The document tells the truth: real answers have the documented error shape.
  const schemaOf = (operation: Operation | undefined, status: number) => operation?.responses[String(status)]?.content?.['application/json']?.schema
  const answers = [
    { operation: lookup, res: await postJson(app, '/ccenter/getConseillerByCode', {}), status: 400 },
    { operation: lookup, res: await postJson(app, '/ccenter/getConseillerByCode', { code: 'NOPE' }), status: 404 },
    { operation: lookup, res: await app.inject({ method: 'GET', url: '/ccenter/getConseillerByCode' }), status: 405 },
    { operation: poll, res: await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: 'x'.repeat(1024 * 1024 + 1) }), status: 413 },
    { operation: poll, res: await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'text/plain' }, payload: 'hi' }), status: 415 }
  ]
  for (const { operation, res, status } of answers) {
    t.equal(res.statusCode, status)
    assertErrorShape(t, res.json(), schemaOf(operation, status), status)
  }
  t.equal(answers[2]?.res.headers.allow, 'POST')
})

t.test('the document and the reference page are not profiled when they succeed; the page has its own CSP', async t => {
  const app = await buildTestApp(t)
  const doc = await app.inject('/openapi.json')
  t.equal(doc.headers['x-debug-token'], undefined)
  const page = await app.inject('/docs/')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.body, /swagger-ui-bundle\.js/)
  t.equal(page.headers['x-debug-token'], undefined)
  const csp = String(page.headers['content-security-policy'])
  t.match(csp, /default-src 'none'/)
  t.match(csp, /script-src 'self';/)
  t.notMatch(csp, /unsafe-eval|upgrade-insecure-requests/)
  const script = await app.inject('/docs/static/swagger-ui-bundle.js')
  t.equal(script.statusCode, 200)
  t.equal(script.headers['x-debug-token'], undefined)
  const missing = await app.inject('/docs/static/nope.js')
  t.equal(missing.statusCode, 404)
  const poll = await postJson(app, '/monitor/MonitorPooling', {})
  t.equal(poll.statusCode, 200)
  const urls = (await listProfiles(app)).map(profile => new URL(profile.url).pathname)
  t.same(urls.sort(), ['/docs/static/nope.js', '/monitor/MonitorPooling'], 'only the business call and the failed asset')
})

t.test('production: the document is served, the reference page only with API_REFERENCE=on', async t => {
  t.test('off by default', async t => {
    const app = await buildTestApp(t, { NODE_ENV: 'production' })
    t.equal((await app.inject('/openapi.json')).statusCode, 200)
    t.equal((await app.inject('/docs/')).statusCode, 404)
  })
  t.test('on when asked', async t => {
    const app = await buildTestApp(t, { NODE_ENV: 'production', API_REFERENCE: 'on' })
    t.equal((await app.inject('/docs/')).statusCode, 200)
  })
})
