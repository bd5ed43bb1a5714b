// The cURL and HAR exports read by tools nobody here wrote: curlconverter parses each "Copy as
// cURL" command, har-validator checks each HAR file and httpsnippet reads it as a request. What they
// read must be the stored request: method, URL, headers, body.
import { createRequire } from 'node:module'
import { toJsonObject } from 'curlconverter'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { HTTPSnippet, type HarRequest } from 'httpsnippet'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profileJson } from '../helpers/profiler.js'

const require = createRequire(import.meta.url)
// har-validator ships no types: its promise API resolves the document or rejects with the schema errors.
const { har: validateHar } = require('har-validator') as { har: (document: unknown) => Promise<unknown> }

/** Set by the transport, not by the client: a replay computes them again. */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection'])
const LOOKUP = '/ccenter/getConseillerByCode'
const POLL = '/monitor/MonitorPooling'

interface Case { name: string, request: InjectOptions, body: 'json' | 'form' | 'none' }

const CASES: Case[] = [
  // The password is redacted: the stored body is shorter or longer than the one sent.
  { name: 'JSON', body: 'json', request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json', authorization: 'Bearer abc.def' }, payload: JSON.stringify({ code: 'ADV1001', password: 'hunter2' }) } },
  // Spaces re-encoded as +, a field redacted: the stored text differs from the one sent.
  { name: 'form', body: 'form', request: { method: 'POST', url: `${POLL}?x=1`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'code=ADV1001&password=hunter%202&note=a%20b' } },
  { name: 'body-less POST', body: 'none', request: { method: 'POST', url: POLL } },
  { name: 'body-less DELETE', body: 'none', request: { method: 'DELETE', url: POLL, headers: { accept: 'application/json' } } },
  { name: 'GET', body: 'none', request: { method: 'GET', url: '/robots.txt', headers: { accept: 'text/plain' } } },
  { name: 'HEAD', body: 'none', request: { method: 'HEAD', url: '/robots.txt' } }
]

interface StoredRequest { method: string, url: string, requestHeaders: Record<string, string>, body: unknown }

/** The headers a replay must send: the stored ones less what the transport sets. */
function replayedHeaders (stored: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(stored).filter(([name]) => !TRANSPORT_HEADERS.has(name.toLowerCase())))
}

const lowerKeys = (headers: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]))

async function stored (app: FastifyInstance, token: string): Promise<StoredRequest> {
  return (await profileJson(app, token, '?panel=request')).panels.request as StoredRequest
}

t.test('curlconverter reads each "Copy as cURL" command as the stored request', async t => {
  const app = await buildTestApp(t)
  for (const { name, request, body } of CASES) {
    const token = String((await app.inject(request)).headers['x-debug-token'])
    const panel = await stored(app, token)
    const curl = await app.inject({ url: `/_profiler/${token}/curl` })
    t.equal(curl.statusCode, 200)
    const read = toJsonObject(curl.body)
    t.equal(read.method.toUpperCase(), panel.method, `${name}: method`)
    t.equal(read.url, panel.url.split('?')[0], `${name}: URL`)
    t.same(read.queries ?? {}, Object.fromEntries(new URL(panel.url).searchParams), `${name}: query`)
    t.same(lowerKeys(read.headers ?? {}), replayedHeaders(panel.requestHeaders), `${name}: headers`)
    if (body === 'none') t.equal(read.data, undefined, `${name}: no body`)
    else t.same(read.data, panel.body, `${name}: the stored body`)
  }
})

t.test('har-validator accepts each HAR file and httpsnippet reads it as the stored request', async t => {
  const app = await buildTestApp(t)
  for (const { name, request, body } of CASES) {
    const token = String((await app.inject(request)).headers['x-debug-token'])
    const panel = await stored(app, token)
    const document = (await app.inject({ url: `/_profiler/${token}/har` })).json()
    await t.resolves(validateHar(document), `${name}: a valid HAR 1.2 file`)
    const entry = document.log.entries[0]
    const harRequest = entry.request as HarRequest & { bodySize: number }

    // httpsnippet rewrites the request it is given: it reads a copy.
    const [read] = new HTTPSnippet(structuredClone(harRequest)).requests
    if (read === undefined) throw new Error('httpsnippet read no request')
    t.equal(read.method, panel.method, `${name}: method`)
    t.equal(read.fullUrl, panel.url, `${name}: URL`)
    t.same(lowerKeys(read.allHeaders), replayedHeaders(panel.requestHeaders), `${name}: headers, no stale Content-Length or Host`)
    if (body === 'json') {
      t.same(read.postData.jsonObj, panel.body, `${name}: the stored body`)
      t.equal(harRequest.bodySize, Buffer.byteLength(read.postData.text ?? ''), `${name}: bodySize is the exported text's`)
    } else if (body === 'form') {
      t.same(read.postData.paramsObj, panel.body, `${name}: the stored form, from params`)
      t.equal(new URLSearchParams(read.postData.text).toString(), new URLSearchParams(panel.body as Record<string, string>).toString(), `${name}: text beside params`)
      t.equal(harRequest.bodySize, Buffer.byteLength(harRequest.postData.text ?? ''), `${name}: bodySize is the exported text's`)
    } else {
      t.equal(read.postData.text, undefined, `${name}: no body`)
      t.equal(harRequest.bodySize, 0, `${name}: an empty body`)
    }
    if (request.method === 'HEAD') {
      t.equal(entry.response.bodySize, 0, 'a HEAD response has no body')
      t.equal(entry.response.content.size, 0)
    }
  }
})
