// run-suite: shares a process
import { Readable } from 'node:stream'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, listeningApp } from '../helpers/app.js'
import { sendRaw } from '../helpers/raw-http.js'

const URL = '/ccenter/getConseillerByCode'

/** A test route that echoes what the handler received, to see the transformer's output. */
function echoRoute (app: FastifyInstance): void {
  app.post('/test/echo', async request => ({ body: request.body, plain: Object.getPrototypeOf(request.body) === Object.prototype }))
}

async function echoApp (t: Parameters<typeof buildTestApp>[0]) {
  return buildTestApp(t, {}, echoRoute)
}

t.test('JSON, +json and form bodies reach the handler as the same plain object', async t => {
  const app = await echoApp(t)
  const bodies = [
    { 'content-type': 'application/json', payload: '{"code":"ADV1","team":"Sales"}' },
    { 'content-type': 'application/json; charset=utf-8', payload: '{"code":"ADV1","team":"Sales"}' },
    { 'content-type': 'application/vnd.contact+json', payload: '{"code":"ADV1","team":"Sales"}' },
    { 'content-type': 'application/x-www-form-urlencoded', payload: 'code=ADV1&team=Sales' }
  ]
  for (const { payload, 'content-type': type } of bodies) {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': type }, payload })
    t.equal(res.statusCode, 200, type)
    t.same(res.json(), { body: { code: 'ADV1', team: 'Sales' }, plain: true })
  }
})

t.test('an empty or absent body is {}', async t => {
  const app = await echoApp(t)
  for (const headers of [{}, { 'content-type': 'application/json' }, { 'content-type': 'application/x-www-form-urlencoded' }]) {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers })
    t.same(res.json(), { body: {}, plain: true })
  }
})

t.test('an empty chunked body is an empty body ({}), whatever its Content-Type; one byte of an unknown type is still a 415', async t => {
  const { app, address } = await listeningApp(t, {}, {}, echoRoute)
  for (const type of [undefined, 'text/plain', 'application/json']) {
    const headers = { 'transfer-encoding': 'chunked', ...(type === undefined ? {} : { 'content-type': type }) }
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers, payload: '' })
    t.equal(res.statusCode, 200, `chunked, empty, ${type ?? 'no Content-Type'}`)
    t.same(res.json(), { body: {}, plain: true })
  }
  const oneByte = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'transfer-encoding': 'chunked' }, payload: Readable.from([Buffer.from('x')]) })
  t.equal(oneByte.statusCode, 415)
  t.match(oneByte.json().message, /^Unsupported Content-Type "": send application\/json/)
  const unknownPath = await app.inject({ method: 'POST', url: '/nowhere', headers: { 'transfer-encoding': 'chunked', 'content-type': 'text/plain' }, payload: Readable.from([Buffer.from('x')]) })
  t.equal(unknownPath.statusCode, 404, 'an unknown path stays a 404')

  // The same on the wire: the chunked framing of an empty body (the last chunk only), no Content-Type.
  const answer = await sendRaw(address, 'POST /monitor/MonitorPooling HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n')
  t.match(answer, /^HTTP\/1\.1 200 OK\r\n/, 'the status poll answers')
  t.match(answer, /"status":"ok"/)
})

t.test('the business routes take form bodies too', async t => {
  const app = await echoApp(t)
  const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'code=ADV1005' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().code, 'ADV1005')
})

t.test('malformed JSON is a 400 that says so and where parsing failed', async t => {
  const app = await echoApp(t)
  const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload: '{\n  "code": "ADV1",\n  oops\n}' })
  t.equal(res.statusCode, 400)
  t.equal(res.json().error, 'Bad Request')
  t.match(res.json().message, /^Request body is not valid JSON \(line 3, column 3\)/)
  const truncated = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload: '{"code": "AD' })
  t.equal(truncated.statusCode, 400)
  t.match(truncated.json().message, /not valid JSON \(line 1, column 13\)/)
})

t.test('a body that is not an object is a 400', async t => {
  const app = await echoApp(t)
  for (const [payload, kind] of [['[1,2]', 'an array'], ['"text"', 'a string'], ['42', 'a number'], ['null', 'null']] as const) {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload })
    t.equal(res.statusCode, 400, payload)
    t.equal(res.json().message, `Request body must be a JSON object, not ${kind}`)
  }
})

t.test('prototype-polluting keys are rejected', async t => {
  const app = await echoApp(t)
  const payloads = [
    ['application/json', '{"__proto__": {"admin": true}}'],
    ['application/json', '{"constructor": {"prototype": {"admin": true}}}'],
    ['application/json', '{"a": {"__proto__": {"admin": true}}}'],
    ['application/x-www-form-urlencoded', '__proto__=x&code=1']
  ]
  for (const [type, payload] of payloads) {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': type }, payload })
    t.equal(res.statusCode, 400, String(payload))
    t.match(res.json().message, /forbidden key/)
  }
  t.equal(({} as Record<string, unknown>).admin, undefined, 'Object.prototype untouched')
})

t.test('a body over 1 MiB is a 413', async t => {
  const app = await echoApp(t)
  const payload = JSON.stringify({ code: 'x'.repeat(1024 * 1024) })
  const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload })
  t.equal(res.statusCode, 413)
  t.match(res.json().message, /larger than the 1 MiB limit/)
})

t.test('another content type is a 415 listing the accepted types', async t => {
  const app = await echoApp(t)
  for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
    const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': type }, payload: 'code=1' })
    t.equal(res.statusCode, 415, type)
    t.equal(res.json().message, `Unsupported Content-Type "${type}": send application/json, application/*+json, application/x-www-form-urlencoded`)
  }
})
