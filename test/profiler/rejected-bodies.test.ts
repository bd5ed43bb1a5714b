// Issue 25: a request refused for its body (malformed JSON, text/plain, multipart, too large) keeps
// its body as sent, up to the 64 KiB preview and redacted: the request panel says it was not parsed
// and shows it, "Copy as cURL" sends the same bytes with the same type (the service refuses the
// replay the same way), and the HAR gives it with its size (-1 when unknown). The service's answers
// stay what they were.
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import type { FastifyInstance, InjectOptions } from 'fastify'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profileJson, profilerPage } from '../helpers/profiler.js'

const LOOKUP = '/ccenter/getConseillerByCode'
const POLL = '/monitor/MonitorPooling'
const PREVIEW_BYTES = 64 * 1024
const SECRETS = /hunter2|s3cr3t-note|tok-3x4mpl3|4111111111111111|multi-s3cret/

/** The request as the profiler keeps it and exports it. */
async function exported (app: FastifyInstance, token: string) {
  const profile = await profileJson(app, token)
  const curl = (await profilerPage(app, `/${token}/curl`)).body
  const har = JSON.parse((await profilerPage(app, `/${token}/har`)).body).log.entries[0]
  const page = (await app.inject({ url: `/_profiler/${token}?panel=request`, headers: { accept: 'text/html' } })).body
  return { profile, request: profile.panels.request, curl, har, page }
}

async function sent (app: FastifyInstance, request: InjectOptions) {
  const answer = await app.inject(request)
  return { answer, ...(await exported(app, String(answer.headers['x-debug-token']))) }
}

const MALFORMED = '{"code": "ADV1001", "password": "hunter2", "note": "password=s3cr3t-note", "card": 4111111111111111,\n' +
  ' "auth": {"token": "tok-3x4mpl3", "n": [1, 2]}, oops}'

t.test('malformed JSON: the 400 as before; the body kept as sent, redacted; the panel says it was not parsed; cURL and HAR give it', async t => {
  const app = await buildTestApp(t)
  const { answer, profile, request, curl, har, page } = await sent(app, { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json' }, payload: MALFORMED })
  t.equal(answer.statusCode, 400)
  t.match(answer.json().message, /^Request body is not valid JSON \(line 2, column \d+\): /)
  const redacted = '{"code": "ADV1001", "password": "[redacted]", "note": "password=%5Bredacted%5D", "card": [redacted],\n "auth": "[redacted]", oops}'
  t.same(request.rawBody, { text: redacted, bytes: Buffer.byteLength(MALFORMED), truncated: false, reason: answer.json().message }, 'each secret redacted, the rest as sent')
  t.equal(request.body, null, 'no parsed body')
  t.notMatch(JSON.stringify(profile), SECRETS, 'no secret in clear anywhere in the profile')
  t.match(page, /<strong>Not parsed<\/strong>: Request body is not valid JSON \(line 2, column \d+\): [^<]*; raw body shown \(\d+ B\)\.<\/p>/)
  t.match(page, /<h3>Body \(as sent\)<\/h3>/)
  t.match(curl, "-H 'content-type: application/json'")
  t.match(curl, `--data-raw '${redacted}'`, 'cURL sends the body as stored')
  t.notMatch(curl + JSON.stringify(har) + page, SECRETS)
  t.same(har.request.postData, {
    mimeType: 'application/json',
    text: redacted,
    comment: `Not parsed by the service (${answer.json().message}): the body as sent.`
  })
  t.equal(har.request.bodySize, Buffer.byteLength(redacted), "bodySize is the exported text's")
})

t.test('text/plain and multipart: the 415 as before; the body kept as sent, a secret-named part redacted', async t => {
  const app = await buildTestApp(t)
  const text = 'ADV1001 \u0001 café token=tok-3x4mpl3'
  const plain = await sent(app, { method: 'POST', url: LOOKUP, headers: { 'content-type': 'text/plain' }, payload: text })
  t.equal(plain.answer.statusCode, 415)
  t.equal(plain.answer.json().message, 'Unsupported Content-Type "text/plain": send application/json, application/*+json, application/x-www-form-urlencoded')
  t.same(plain.request.rawBody, { text: 'ADV1001 \u0001 café token=%5Bredacted%5D', bytes: Buffer.byteLength(text), truncated: false, reason: plain.answer.json().message })
  t.match(plain.page, '<pre tabindex="0" id="raw-body">ADV1001 \\u0001 café token&#x3D;%5Bredacted%5D</pre>', 'a control character shown escaped')
  t.match(plain.curl, '--data-raw \'ADV1001 \'"$(printf \'\\001\')"\' café token=%5Bredacted%5D\'')

  const type = 'multipart/form-data; boundary=----form7'
  const form = '------form7\r\nContent-Disposition: form-data; name="code"\r\n\r\nADV1001\r\n' +
    '------form7\r\nContent-Disposition: form-data; name="password"\r\n\r\nmulti-s3cret\r\n' +
    '------form7\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nline one\r\nline two\r\n------form7--\r\n'
  const multipart = await sent(app, { method: 'POST', url: POLL, headers: { 'content-type': type }, payload: form })
  t.equal(multipart.answer.statusCode, 415)
  t.equal(multipart.answer.json().message, `Unsupported Content-Type "${type}": send application/json, application/*+json, application/x-www-form-urlencoded`)
  const stored = form.replace('multi-s3cret', '[redacted]')
  t.equal(multipart.request.rawBody.text, stored, 'the password part redacted, the rest byte for byte')
  t.notMatch(JSON.stringify(multipart.profile) + multipart.curl + JSON.stringify(multipart.har), SECRETS)
  t.same(multipart.har.request.postData, {
    mimeType: type,
    params: [{ name: 'code', value: 'ADV1001' }, { name: 'password', value: '[redacted]' }, { name: 'file', value: 'line one\r\nline two', fileName: 'a.txt', contentType: 'text/plain' }],
    text: stored,
    comment: `Not parsed by the service (${multipart.answer.json().message}): the body as sent.`
  }, 'its parts as params beside the text')
  t.match(multipart.page, '<strong>Not parsed</strong>: Unsupported Content-Type')

  // A body that is not UTF-8 is kept with its invalid bytes replaced, and said so.
  const bytes = Buffer.concat([Buffer.from('{"code": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
  const binary = await sent(app, { method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json' }, payload: bytes })
  t.equal(binary.answer.json().message, 'Request body is not valid UTF-8')
  t.match(binary.request.rawBody, { text: '{"code": "\ufffd\ufffd"}', lossy: true })
  t.match(binary.page, 'bytes that are not UTF-8 shown as U+FFFD')
  t.match(binary.har.request.postData.comment, 'Bytes that were not UTF-8 are given as U+FFFD.')
})

t.test('too large: the 413 as before; its first 64 KiB kept with the size as sent', async t => {
  const app = await buildTestApp(t)
  const payload = JSON.stringify({ code: 'ADV1001', note: 'x'.repeat(1024 * 1024) })
  const { answer, request, curl, har, page } = await sent(app, { method: 'POST', url: POLL, headers: { 'content-type': 'application/json' }, payload })
  t.equal(answer.statusCode, 413)
  t.equal(answer.json().message, 'Request body is larger than the 1 MiB limit (1048576 bytes)')
  t.same(request.rawBody, { text: payload.slice(0, PREVIEW_BYTES), bytes: payload.length, truncated: true, reason: answer.json().message })
  t.match(page, 'raw body shown (1.0 MiB, only its first 64 KiB kept)')
  t.match(page, '<strong>The body was over 64 KiB</strong>: only its stored preview is sent.')
  t.ok(curl.includes(`--data-raw '${payload.slice(0, PREVIEW_BYTES)}'`), 'cURL sends the preview')
  t.equal(har.request.postData.text, payload.slice(0, PREVIEW_BYTES))
  t.equal(har.request.bodySize, payload.length, 'bodySize: the size as sent')

  // Chunked, it is refused once past 1 MiB: its counter kept its start (its size is known if it ended by then).
  const chunked = await sent(app, { method: 'POST', url: POLL, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, payload: Readable.from([Buffer.from(payload)]) })
  t.equal(chunked.answer.statusCode, 413)
  t.match(chunked.request.rawBody, { text: payload.slice(0, PREVIEW_BYTES), truncated: true })
  t.ok([null, payload.length].includes(chunked.request.rawBody.bytes), `the size as sent, or unknown (${String(chunked.request.rawBody.bytes)})`)
  t.equal(chunked.har.request.bodySize, chunked.request.rawBody.bytes ?? -1)

  // A body of a type no parser takes has no size limit: a 415, not a 413, its start kept.
  const large = 'y'.repeat(2 * 1024 * 1024)
  const plain = await sent(app, { method: 'POST', url: POLL, headers: { 'content-type': 'text/plain' }, payload: large })
  t.equal(plain.answer.statusCode, 415)
  t.same(plain.request.rawBody, { text: large.slice(0, PREVIEW_BYTES), bytes: large.length, truncated: true, reason: plain.answer.json().message })
})

t.test('a chunked body refused before its end: answered after its first 64 KiB, its size unknown (HAR bodySize -1)', async t => {
  const app = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const socket = connect((app.server.address() as { port: number }).port, '127.0.0.1')
  t.teardown(() => { socket.destroy() })
  let received = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => { received += chunk })
  const chunk = 'z'.repeat(70 * 1024)
  // The body's last chunk never comes: the answer cannot wait for it.
  socket.write(`POST ${LOOKUP} HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`)
  while (!/\r\n\r\n[\s\S]*\}$/.test(received)) await once(socket, 'data')
  t.match(received, /^HTTP\/1\.1 415 Unsupported Media Type\r\n/)
  const token = /x-debug-token: ([0-9a-f]+)/.exec(received)?.[1] ?? ''
  const { request, har, page } = await exported(app, token)
  t.match(request.rawBody, { bytes: null, truncated: true })
  t.ok(request.rawBody.text.length >= PREVIEW_BYTES - 4096 && /^z+$/.test(request.rawBody.text), 'the start of the body')
  t.equal(har.request.bodySize, -1, 'a size not known is -1')
  t.match(page, 'raw body shown (size unknown, only its first 64 KiB kept)')
})

t.test('HEAD: no request body, and a response body of 0 bytes in the HAR, whatever its Content-Length', async t => {
  const app = await buildTestApp(t)
  // The business API has no GET route: a HEAD of an unknown path, answered 404 with the Content-Length of its GET.
  const { answer, request, har } = await sent(app, { method: 'HEAD', url: '/robots.txt' })
  t.equal(answer.statusCode, 404)
  t.ok(Number(answer.headers['content-length']) > 0, 'its Content-Length is the GET answer\'s')
  t.equal(request.rawBody, undefined)
  t.equal(har.request.bodySize, 0)
  t.equal(har.response.bodySize, 0)
  t.equal(har.response.content.size, 0)
})

t.test('pasted into a shell, the command sends the same bytes: the service refuses them the same way', async t => {
  const dir = t.testdir()
  const app = await buildTestApp(t)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const type = 'multipart/form-data; boundary=xYz'
  const requests = [
    { type: 'application/json', body: '{"code": "ADV1001", oops}' },
    { type, body: '--xYz\r\nContent-Disposition: form-data; name="code"\r\n\r\nADV1001 \'$(touch pwned)\'\r\n--xYz--\r\n' },
    { type: 'text/plain', body: 'x'.repeat(PREVIEW_BYTES + 10) },
    // No type at all: curl must not add its own.
    { type: undefined, body: 'ADV1001' }
  ]
  for (const { type, body } of requests) {
    // Bytes: fetch gives them no type of its own.
    const first = await fetch(`${address}${LOOKUP}`, { method: 'POST', headers: type === undefined ? {} : { 'content-type': type }, body: new TextEncoder().encode(body) })
    const message = ((await first.json()) as { message: string }).message
    const token = first.headers.get('x-debug-token') ?? ''
    await app.profileStore.flush()
    const command = await (await fetch(`${address}/_profiler/${token}/curl`)).text()
    // Asynchronously: the server answering curl runs in this process.
    const { stdout } = await promisify(execFile)('sh', ['-c', `${command.trimEnd()} -s -D -`], { cwd: dir, maxBuffer: 1024 * 1024 })
    t.match(stdout, new RegExp(`^HTTP/1\\.1 ${first.status} `), `${type}: the same status (${first.status})`)
    t.equal(JSON.parse(stdout.slice(stdout.indexOf('\r\n\r\n') + 4)).message, message, `${type}: the same message`)
    const again = /x-debug-token: ([0-9a-f]+)/i.exec(stdout)?.[1] ?? ''
    const [before, after] = [await profileJson(app, token), await profileJson(app, again)]
    t.equal(after.panels.request.rawBody.text, before.panels.request.rawBody.text, `${type}: the same body stored again`)
    t.equal(after.panels.request.requestHeaders['content-type'], type, `${type}: with its type`)
  }
  t.notOk(existsSync(join(dir, 'pwned')), 'nothing but curl ran')
})
