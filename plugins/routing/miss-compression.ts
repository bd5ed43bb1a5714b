// The answers to routing misses (404, 405, 301 for an unknown path or method), compressed as every
// route's answers are: an HTML 404 or 405 page is ~5.6 KB (~2 KB gzipped), above the 1 KiB
// threshold. @fastify/compress compresses through a hook it gives each route as the route is added
// (onRoute), and sets reply.compress there too; misses are answered by Fastify's not-found handler,
// which is no route, so neither reaches them. They are compressed here with node:zlib, with the
// settings @fastify/compress is given (threshold, encodings) and its defaults (brotli quality 4,
// the types it compresses, Vary), negotiated by the package it negotiates with. Nothing here reads
// another plugin's hooks: an earlier version took compress's route hook from a throwaway Fastify
// instance, and refused to start wherever OpenTelemetry instruments every instance (issue 39).
import * as zlib from 'node:zlib'
import negotiate from '@fastify/accept-negotiator'
import type { FastifyCompressOptions } from '@fastify/compress'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

/** What app.ts gives @fastify/compress that bears on misses (the same object is given to both). */
type MissCompressionOptions = Pick<FastifyCompressOptions, 'threshold' | 'encodings'>

type Compressor = (payload: Buffer) => Buffer

/** @fastify/compress's default brotli quality (zlib's 11 is far slower for little gain). */
const BROTLI_QUALITY = 4
/** @fastify/compress's default threshold, in bytes. */
const DEFAULT_THRESHOLD = 1024

/** The types @fastify/compress compresses by default: text (not event streams), JSON, XML, binary. */
const COMPRESSIBLE = /^text\/(?!event-stream)|[+/](?:json|text|xml)(?:;|$)|octet-stream(?:;|$)/

/** The encodings this Node offers, in @fastify/compress's order of preference (zstd only where zlib has it). */
function availableCompressors (): Map<string, Compressor> {
  const compressors = new Map<string, Compressor>()
  const zstd = (zlib as unknown as { zstdCompressSync?: Compressor }).zstdCompressSync
  if (typeof zstd === 'function') compressors.set('zstd', payload => zstd(payload))
  compressors.set('br', payload => zlib.brotliCompressSync(payload, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }))
  compressors.set('gzip', payload => zlib.gzipSync(payload))
  compressors.set('deflate', payload => zlib.deflateSync(payload))
  return compressors
}

/** The encodings offered, as @fastify/compress orders them: its own order, or the order given. */
function offeredEncodings (given: string[] | undefined, compressors: Map<string, Compressor>): string[] {
  const supported = [...compressors.keys(), 'identity']
  if (given === undefined) return supported
  return supported.filter(encoding => given.includes(encoding)).sort((a, b) => given.indexOf(a) - given.indexOf(b))
}

/** The encoding to answer with, or null: `*` and `x-gzip` read as gzip, as @fastify/compress reads them. */
function chosenEncoding (request: FastifyRequest, offered: string[]): string | null {
  const header = request.headers['accept-encoding']
  if (header === undefined) return null
  const encoding = negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), offered)
  return encoding === 'identity' ? null : encoding
}

/** Whether the answer is one compression leaves alone, whatever the client accepts. */
function leftAlone (request: FastifyRequest, reply: FastifyReply): boolean {
  const encoding = reply.getHeader('content-encoding')
  if (encoding !== undefined && encoding !== 'identity') return true
  if (request.headers['x-no-compression'] !== undefined) return true
  // Content-Range counts bytes of the unencoded answer.
  if (reply.statusCode === 206 || reply.hasHeader('content-range')) return true
  return !COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? 'application/json'))
}

/** Adds accept-encoding to Vary unless it is there. */
function varyOnEncoding (reply: FastifyReply): void {
  const vary = reply.getHeader('vary')
  if (vary === undefined) {
    reply.header('vary', 'accept-encoding')
    return
  }
  const values = [vary].flat().map(String)
  if (!values.some(value => /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(value))) reply.header('vary', [...values, 'accept-encoding'].join(', '))
}

/** Registered after every app-level onSend hook that reads the answer (the profiler's): misses only, matched routes have compress's own. */
export default fp<MissCompressionOptions>(async function missCompressionPlugin (app, options) {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD
  const compressors = availableCompressors()
  const offered = offeredEncodings(options.encodings, compressors)
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.is404 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload)
    if (leftAlone(request, reply)) return done(null, payload)
    const encoding = chosenEncoding(request, offered)
    const compressor = encoding === null ? undefined : compressors.get(encoding)
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload)
    if (encoding === null || compressor === undefined || bytes.length < threshold) return done(null, payload)
    // In one call, on this thread, as @fastify/compress does below its syncThreshold: a miss's page
    // quotes at most the request line and Referer (Node's 16 KiB of headers, escaped).
    const compressed = compressor(bytes)
    varyOnEncoding(reply)
    reply.header('content-encoding', encoding)
    reply.header('content-length', compressed.length)
    done(null, compressed)
  })
}, { name: 'miss-compression', dependencies: ['routing-errors'] })
