// run-suite: shares a process
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

/**
 * What the exports must give back: the stored JSON or form, nothing, or the body as sent ('raw':
 * refused by the service for its body, stored as it came; 'truncated': its first 64 KiB).
 */
interface Case { name: string, request: InjectOptions, body: 'json' | 'form' | 'none' | 'raw' | 'truncated' }

const PREVIEW_BYTES = 64 * 1024
const TOO_LARGE = JSON.stringify({ code: 'ADV1001', note: 'x'.repeat(1024 * 1024) })

const CASES: Case[] = [
  // The password is redacted: the stored body is shorter or longer than the one sent.
  { name: 'JSON', body: 'json', request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json', authorization: 'Bearer abc.def' }, payload: JSON.stringify({ code: 'ADV1001', password: 'hunter2' }) } },
  // Spaces re-encoded as +, a field redacted: the stored text differs from the one sent.
  { name: 'form', body: 'form', request: { method: 'POST', url: `${POLL}?x=1`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'code=ADV1001&password=hunter%202&note=a%20b' } },
  { name: 'body-less POST', body: 'none', request: { method: 'POST', url: POLL } },
  { name: 'body-less DELETE', body: 'none', request: { method: 'DELETE', url: POLL, headers: { accept: 'application/json' } } },
  { name: 'GET', body: 'none', request: { method: 'GET', url: '/robots.txt', headers: { accept: 'text/plain' } } },
  { name: 'HEAD', body: 'none', request: { method: 'HEAD', url: '/robots.txt' } },
  // Refused for their body (400, 415, 413): each is given back as it was sent.
  { name: 'malformed JSON', body: 'raw', request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json' }, payload: '{"code": "ADV1001", oops}' } },
  { name: 'text/plain', body: 'raw', request: { method: 'POST', url: LOOKUP, headers: { 'content-type': 'text/plain; charset=utf-8' }, payload: 'ADV1001, café' } },
  // LF line ends: curlconverter does not run the printf through which a command writes a CR (the
  // CRLF form goes through a real shell and curl in rejected-bodies.test.ts).
  { name: 'multipart', body: 'raw', request: { method: 'POST', url: POLL, headers: { 'content-type': 'multipart/form-data; boundary=b0undary' }, payload: '--b0undary\nContent-Disposition: form-data; name="code"\n\nADV1001\n--b0undary\nContent-Disposition: form-data; name="note"; filename="a.txt"\nContent-Type: text/plain\n\nline one\nline two\n--b0undary--\n' } },
  { name: 'too large', body: 'truncated', request: { method: 'POST', url: POLL, headers: { 'content-type': 'application/json' }, payload: TOO_LARGE } }
]

/** The body a replay sends, as the client sent it: all of it, or its first 64 KiB. */
function sentBody ({ request, body }: Case): string {
  const payload = String(request.payload)
  return body === 'truncated' ? payload.slice(0, PREVIEW_BYTES) : payload
}

interface StoredRequest { method: string, url: string, requestHeaders: Record<string, string>, body: unknown, rawBody?: { text: string } }

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
  // curlconverter's shell parser (tree-sitter) refuses a command over 32 KiB: the 64 KiB preview of
  // a body too large goes through a real shell and curl in rejected-bodies.test.ts.
  for (const testCase of CASES.filter(({ body }) => body !== 'truncated')) {
    const { name, request, body } = testCase
    const answer = await app.inject(request)
    const token = String(answer.headers['x-debug-token'])
    const panel = await stored(app, token)
    const curl = await app.inject({ url: `/_profiler/${token}/curl` })
    t.equal(curl.statusCode, 200)
    const read = toJsonObject(curl.body)
    t.equal(read.method.toUpperCase(), panel.method, `${name}: method`)
    t.equal(read.url, panel.url.split('?')[0], `${name}: URL`)
    t.same(read.queries ?? {}, Object.fromEntries(new URL(panel.url).searchParams), `${name}: query`)
    t.same(lowerKeys(read.headers ?? {}), replayedHeaders(panel.requestHeaders), `${name}: headers`)
    if (body === 'none') {
      t.equal(read.data, undefined, `${name}: no body`)
    } else if (body === 'json' || body === 'form') {
      t.same(read.data, panel.body, `${name}: the stored body`)
    } else {
      t.equal(read.data, sentBody(testCase), `${name}: the body as sent`)
      t.equal(read.data, panel.rawBody?.text, `${name}: the stored raw body`)
    }
    if (body === 'raw') {
      // What curlconverter read, sent again: the service refuses it the same way.
      const headers = Object.fromEntries(Object.entries(read.headers ?? {}).filter((entry): entry is [string, string] => entry[1] !== null))
      const replay = await app.inject({ method: 'POST', url: new URL(read.url).pathname, headers, payload: read.data })
      t.equal(read.method.toUpperCase(), 'POST')
      t.equal(replay.statusCode, answer.statusCode, `${name}: replayed, the same status (${answer.statusCode})`)
      t.equal(replay.json().message, answer.json().message, `${name}: and the same message`)
    }
  }
})

t.test('har-validator accepts each HAR file and httpsnippet reads it as the stored request', async t => {
  const app = await buildTestApp(t)
  for (const testCase of CASES) {
    const { name, request, body } = testCase
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
    const multipart = name === 'multipart'
    // httpsnippet writes a multipart body again from its params, with a boundary of its own.
    const expectedHeaders = multipart ? { ...replayedHeaders(panel.requestHeaders), 'content-type': String(read.allHeaders['content-type']) } : replayedHeaders(panel.requestHeaders)
    t.same(lowerKeys(read.allHeaders), expectedHeaders, `${name}: headers, no stale Content-Length or Host`)
    if (multipart) {
      t.equal(harRequest.postData?.text, sentBody(testCase), `${name}: the HAR's text is the body as sent`)
      t.same(read.postData.params, [
        { name: 'code', value: 'ADV1001' },
        { name: 'note', value: 'line one\nline two', fileName: 'a.txt', contentType: 'text/plain' }
      ], `${name}: httpsnippet reads its parts`)
      t.equal(harRequest.postData?.mimeType, request.headers?.['content-type'], `${name}: its type as sent`)
      t.equal(harRequest.bodySize, Buffer.byteLength(sentBody(testCase)), `${name}: bodySize is the body's`)
    } else if (body === 'raw' || body === 'truncated') {
      t.equal(read.postData.text, sentBody(testCase), `${name}: the body as sent`)
      t.equal(harRequest.postData?.mimeType, request.headers?.['content-type'], `${name}: its type as sent`)
      t.equal(harRequest.bodySize, Buffer.byteLength(String(request.payload)), `${name}: bodySize is the size as sent`)
    } else if (body === 'json') {
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
