// run-suite: shares a process
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { buildTestApp, postJson } from '../helpers/app.js'
import { profileJson } from '../helpers/profiler.js'

const BROWSER = { 'accept-encoding': 'gzip, deflate, br' }

t.test('the reference page\'s Swagger UI goes compressed (a stream), the same bytes once decompressed', async t => {
  const app = await buildTestApp(t)
  const plain = await app.inject('/docs/static/swagger-ui-bundle.js')
  t.equal(plain.statusCode, 200)
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding, not compressed')
  const compressed = await app.inject({ url: '/docs/static/swagger-ui-bundle.js', headers: BROWSER })
  t.equal(compressed.statusCode, 200)
  t.equal(compressed.headers['content-encoding'], 'br')
  t.match(compressed.headers.vary, /accept-encoding/i)
  t.ok(compressed.rawPayload.length < plain.rawPayload.length / 3, `${compressed.rawPayload.length} bytes instead of ${plain.rawPayload.length}`)
  t.ok(brotliDecompressSync(compressed.rawPayload).equals(plain.rawPayload), 'the same script')
  const gzip = await app.inject({ url: '/docs/static/swagger-ui-bundle.js', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.ok(gunzipSync(gzip.rawPayload).equals(plain.rawPayload))
})

t.test('small business answers go as they are; larger pages compressed, X-Debug-Token kept and the answer profiled', async t => {
  const app = await buildTestApp(t)
  const poll = await postJson(app, '/monitor/MonitorPooling', {}, BROWSER)
  t.equal(poll.statusCode, 200)
  t.equal(poll.headers['content-encoding'], undefined, 'under the 1 KiB threshold')
  t.equal(Number(poll.headers['content-length']), poll.rawPayload.length, 'its Content-Length')
  t.ok(poll.headers['x-debug-token'])
  t.equal((await profileJson(app, String(poll.headers['x-debug-token']))).panels.request.response.body.status, 'ok', 'the JSON answer is kept by the profiler')

  const page = await postJson(app, '/ccenter/getConseillerByCode', { code: 'NOPE' }, { ...BROWSER, accept: 'text/html' })
  t.equal(page.statusCode, 404)
  t.equal(page.headers['content-encoding'], 'br')
  t.not(Number(page.headers['content-length'] ?? page.rawPayload.length), brotliDecompressSync(page.rawPayload).length, 'no stale Content-Length on a compressed answer')
  t.match(brotliDecompressSync(page.rawPayload).toString(), /<h1>Not Found<\/h1>/)
  const token = String(page.headers['x-debug-token'])
  t.match(page.headers['x-debug-token-link'], new RegExp(`/_profiler/${token}$`))
  t.match(await profileJson(app, token), { status: 404, panels: { request: { body: { code: 'NOPE' } } } }, 'the compressed answer is profiled')

  const profilerPage = await app.inject({ url: `/_profiler/${token}`, headers: { ...BROWSER, accept: 'text/html' } })
  t.equal(profilerPage.statusCode, 200)
  t.equal(profilerPage.headers['content-encoding'], 'br')
  t.match(profilerPage.headers['content-security-policy'], /default-src 'none'/)
})

t.test('the pages of routing misses (an unknown path, a method not allowed) go compressed like any page; their JSON twins are too small', async t => {
  const app = await buildTestApp(t)
  const plain = await app.inject({ url: '/nowhere', headers: { accept: 'text/html' } })
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding, not compressed')
  t.ok(plain.rawPayload.length > 1024, `the 404 page is over the 1 KiB threshold (${plain.rawPayload.length} bytes)`)

  const notFound = await app.inject({ url: '/nowhere', headers: { accept: 'text/html', 'accept-encoding': 'gzip' } })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.headers['content-encoding'], 'gzip')
  t.match(notFound.headers.vary, /accept-encoding/i)
  t.ok(notFound.rawPayload.length < plain.rawPayload.length / 2, `${notFound.rawPayload.length} bytes instead of ${plain.rawPayload.length}`)
  t.equal(gunzipSync(notFound.rawPayload).toString(), plain.body, 'the same page')
  const token = String(notFound.headers['x-debug-token'])
  t.match(await profileJson(app, token), { status: 404, panels: { router: { failure: { outcome: 'not-found' } } } }, 'the compressed miss is profiled')

  const notAllowed = await app.inject({ method: 'DELETE', url: '/monitor/MonitorPooling', headers: { ...BROWSER, accept: 'text/html' } })
  t.equal(notAllowed.statusCode, 405)
  t.equal(notAllowed.headers['content-encoding'], 'br')
  t.equal(notAllowed.headers.allow, 'POST')
  t.match(brotliDecompressSync(notAllowed.rawPayload).toString(), /<h1>Method Not Allowed<\/h1>/)

  const json = await app.inject({ url: '/nowhere', headers: { ...BROWSER, accept: 'application/json' } })
  t.equal(json.statusCode, 404)
  t.equal(json.headers['content-encoding'], undefined, 'the JSON answer is under the threshold')
  t.equal((await profileJson(app, String(json.headers['x-debug-token']))).panels.request.response.body.statusCode, 404, 'and kept by the profiler')
})
