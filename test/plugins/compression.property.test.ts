// run-suite: shares a process
// Routing misses are compressed by our own use of node:zlib (plugins/routing/miss-compression.ts),
// routes by @fastify/compress: on any Accept-Encoding a client may send, both choose the same
// encoding (or none), say so in Vary, and send the same bytes once decoded.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import fc from 'fast-check'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'

/** Decodes an answer's body as its Content-Encoding says. */
function decoded (body: Buffer, encoding: string | undefined): string {
  if (encoding === undefined) return body.toString()
  if (encoding === 'br') return brotliDecompressSync(body).toString()
  if (encoding === 'gzip') return gunzipSync(body).toString()
  if (encoding === 'deflate') return inflateSync(body).toString()
  throw new Error(`unexpected Content-Encoding ${encoding}`)
}

const coding = fc.constantFrom('br', 'gzip', 'deflate', 'identity', '*', 'x-gzip', 'zstd', 'compress', 'BR', 'GZip', 'unknown')
const weight = fc.option(fc.constantFrom('0', '0.1', '0.5', '0.9', '1', '1.0', '0.000'), { nil: undefined })
const acceptEncoding = fc.array(fc.tuple(coding, weight), { maxLength: 5 })
  .map(codings => codings.map(([name, q]) => q === undefined ? name : `${name};q=${q}`).join(', '))

t.test('a miss\'s page and a route\'s page of the same type and size: the same encoding on every Accept-Encoding', async t => {
  const app = await buildTestApp(t)
  const plain = await app.inject({ url: '/nowhere', headers: { accept: 'text/html' } })
  t.ok(plain.rawPayload.length > 1024, 'over the threshold')
  const page = plain.body
  const routed = await buildTestApp(t, {}, app => {
    app.get('/test/page', async (_request, reply) => reply.type(String(plain.headers['content-type'])).send(page))
  })
  await fc.assert(fc.asyncProperty(fc.option(acceptEncoding, { nil: undefined }), fc.boolean(), async (accepted, noCompression) => {
    const headers = {
      accept: 'text/html',
      ...(accepted === undefined ? {} : { 'accept-encoding': accepted }),
      ...(noCompression ? { 'x-no-compression': '1' } : {})
    }
    const miss = await app.inject({ url: '/nowhere', headers })
    const route = await routed.inject({ url: '/test/page', headers })
    const encoding = miss.headers['content-encoding'] as string | undefined
    return encoding === route.headers['content-encoding'] &&
      /accept-encoding/i.test(String(miss.headers.vary)) === /accept-encoding/i.test(String(route.headers.vary)) &&
      decoded(miss.rawPayload, encoding) === page &&
      Number(miss.headers['content-length']) === miss.rawPayload.length
  }), { numRuns: 150, seed: 3901 })
})

t.test('a miss\'s JSON answer goes as it is under the threshold, compressed over it', async t => {
  const app = await buildTestApp(t)
  const json = await app.inject({ url: '/nowhere', headers: { 'accept-encoding': 'gzip, br' } })
  t.equal(json.statusCode, 404)
  t.equal(json.headers['content-encoding'], undefined, 'JSON under 1 KiB')
  t.equal(json.json().statusCode, 404)
  // A long path makes the JSON answer pass the threshold: then it is compressed too.
  const long = await app.inject({ url: `/${'a'.repeat(1500)}`, headers: { 'accept-encoding': 'gzip' } })
  t.equal(long.headers['content-encoding'], 'gzip')
  t.equal(JSON.parse(gunzipSync(long.rawPayload).toString()).statusCode, 404)
})
