// run-suite: shares a process
import { join } from 'node:path'
import { getHttpOperationsFromSpec } from '@stoplight/prism-http'
import { validateOutput } from '@stoplight/prism-http/dist/validator/index.js'
import type { FastifyInstance, InjectOptions } from 'fastify'
import t, { type Test } from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { blockedDir } from '../helpers/blocked.js'

const LOOKUP = '/ccenter/getConseillerByCode'
const POLL = '/monitor/MonitorPooling'
/** What a browser sends, and what an API client sends. */
const ACCEPTS = ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json']

const json = (body: unknown): Pick<InjectOptions, 'headers' | 'payload'> => ({ headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })

/** A realistic mix: valid calls, each kind of refused body, an unknown code, a wrong method. */
const REQUESTS: Array<{ name: string, status: number, request: InjectOptions }> = [
  { name: 'lookup', status: 200, request: { method: 'POST', url: LOOKUP, ...json({ code: 'ADV1001' }) } },
  { name: 'lookup as a form', status: 200, request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'code=ADV1001' } },
  { name: 'poll', status: 200, request: { method: 'POST', url: POLL } },
  { name: 'poll with a code', status: 200, request: { method: 'POST', url: POLL, ...json({ code: 'ADV1001' }) } },
  { name: 'lookup without a code', status: 400, request: { method: 'POST', url: LOOKUP, ...json({}) } },
  { name: 'malformed JSON', status: 400, request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json' }, payload: '{"code":' } },
  { name: 'a code of the wrong type', status: 400, request: { method: 'POST', url: POLL, ...json({ code: 12 }) } },
  { name: 'unknown code', status: 404, request: { method: 'POST', url: LOOKUP, ...json({ code: 'NOPE' }) } },
  { name: 'poll with an unknown code', status: 404, request: { method: 'POST', url: POLL, ...json({ code: 'NOPE' }) } },
  { name: 'too large', status: 413, request: { method: 'POST', url: POLL, headers: { 'content-type': 'application/json' }, payload: 'x'.repeat(1024 * 1024 + 1) } },
  { name: 'text/plain', status: 415, request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'text/plain' }, payload: 'ADV1001' } },
  { name: 'GET on a POST path', status: 405, request: { method: 'GET', url: LOOKUP } },
  { name: 'DELETE on a POST path', status: 405, request: { method: 'DELETE', url: POLL } }
]

type Operation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number]

/**
 * The operation Prism would pick for this request: its path, its method; a 405 is declared on the
 * operations of its path, so it is checked against the path's operation.
 */
function operationFor (operations: Operation[], request: InjectOptions): Operation {
  const path = String(request.url)
  const onPath = operations.filter(operation => operation.path === path)
  const operation = onPath.find(candidate => candidate.method === String(request.method).toLowerCase()) ?? onPath[0]
  if (operation === undefined) throw new Error(`no operation on ${path}`)
  return operation
}

/** Prism's own response validator (the one its validating proxy runs): status, media type, body, headers. */
async function checkAnswers (t: Test, app: FastifyInstance, requests: typeof REQUESTS): Promise<void> {
  const operations = await getHttpOperationsFromSpec((await app.inject('/openapi.json')).json())
  for (const { name, status, request } of requests) {
    for (const accept of ACCEPTS) {
      const res = await app.inject({ ...request, headers: { ...request.headers, accept } })
      t.equal(res.statusCode, status, `${name} (${accept.slice(0, 9)}): ${status}`)
      const contentType = String(res.headers['content-type'])
      const body = contentType.startsWith('application/json') ? res.json() : res.body
      const result = validateOutput({ resource: operationFor(operations, request), element: { statusCode: res.statusCode, headers: res.headers as Record<string, string>, body } })
      t.same(result._tag === 'Left' ? result.left.map(diagnostic => diagnostic.message) : [], [], `${name} (${accept.slice(0, 9)}): ${res.statusCode} ${contentType} is what the document says`)
    }
  }
}

t.test('every answer of a realistic request set, JSON and HTML, is declared by /openapi.json (Prism validator)', async t => {
  const app = await buildTestApp(t)
  await checkAnswers(t, app, REQUESTS)
})

t.test('the 503s of a database outage are declared too, JSON and HTML', async t => {
  const app = await buildTestApp(t, { DATABASE_PATH: join(blockedDir(t), 'blocked', 'app.sqlite') })
  await checkAnswers(t, app, [
    { name: 'lookup while the database is down', status: 503, request: { method: 'POST', url: LOOKUP, ...json({ code: 'ADV1001' }) } },
    { name: 'poll while the database is down', status: 503, request: { method: 'POST', url: POLL } }
  ])
})

t.test('the document names its servers, license and security (none: the business API is open)', async t => {
  const app = await buildTestApp(t)
  const document = (await app.inject('/openapi.json')).json()
  t.ok(Array.isArray(document.servers) && document.servers.length > 0, 'servers')
  t.match(document.servers[0], { url: String })
  t.match(document.info.license, { name: String })
  t.same(document.security, [{}], 'an empty security requirement: no authentication')
  t.match(document.info.description, /no authentication/i, 'and the description says so')
})
