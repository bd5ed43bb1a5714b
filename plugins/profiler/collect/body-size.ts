// What a request carried as body, as the client sent it (before any parsing): how many bytes (what
// the profiler records as "no body" (0) and as a truncated body's size), and the first bytes of a
// body that was not parsed (refused for its type, its syntax or its size), for the profiler to
// show and replay. The body transformer (plugins/request-body/) calls these through the profiler's
// door (index.ts) as it reads a body, whether or not the profiler is on; its 415 reads receivedBodyBytes.
import { pipeline, Transform, type Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
// The most kept of a body as sent: the size of the profiler's body preview.
import { MAX_BODY_BYTES as BODY_PREVIEW_BYTES } from '../capture/body-preview.js'

const COUNTED = Symbol('body bytes counted')
const PREVIEW = Symbol('body preview')
const PREVIEW_READ = Symbol('body preview read')
const RECEIVED = Symbol('body received')

/** A body's first bytes, as they arrive. */
interface Preview { chunks: Buffer[], bytes: number }

type CountedRequest = FastifyRequest & {
  [COUNTED]?: { bytes: number, ended: boolean }
  [PREVIEW]?: Preview
  [PREVIEW_READ]?: boolean
  /** When the body was read to its end, on the reply's clock (reply.elapsedTime); null until then; absent: no body to wait for. */
  [RECEIVED]?: number | null
}

/** Adds what still fits of `chunk` to the request's preview (references: the chunks are copied once, when read). */
function addToPreview (request: CountedRequest, chunk: Buffer): void {
  const preview = request[PREVIEW] ??= { chunks: [], bytes: 0 }
  const room = BODY_PREVIEW_BYTES - preview.bytes
  if (room <= 0) return
  const kept = chunk.length <= room ? chunk : chunk.subarray(0, room)
  preview.chunks.push(kept)
  preview.bytes += kept.length
}

/**
 * The payload a preParsing hook hands on: a chunked body (no Content-Length to tell its size)
 * through a counter, which also keeps its first bytes (a chunked body refused as too large, or cut
 * by a parser error, is not read to its end by any parser); any other payload as it is. Fastify
 * reads `receivedEncodedLength` from the stream it gets for its body limit, so the counter keeps it.
 */
export function countedPayload (request: FastifyRequest, payload: Readable): Readable {
  if (request.headers['transfer-encoding'] === undefined) return payload
  const counted = request as CountedRequest
  const count = { bytes: 0, ended: false }
  counted[COUNTED] = count
  const counter = new Transform({
    transform (chunk: Buffer, _encoding, next) {
      count.bytes += chunk.length
      addToPreview(counted, chunk)
      ;(counter as Transform & { receivedEncodedLength: number }).receivedEncodedLength = count.bytes
      next(null, chunk)
    },
    flush (next) {
      count.ended = true
      next()
    }
  })
  // An aborted request fails the counter too (the parser then stops waiting for it).
  pipeline(payload, counter, () => {})
  return counter
}

/** Keeps the start of a body read whole but not parsed (a JSON parser's error). */
export function keepBodyPreview (request: FastifyRequest, bytes: Buffer): void {
  const counted = request as CountedRequest
  counted[PREVIEW] = { chunks: [], bytes: 0 }
  addToPreview(counted, bytes)
}

/**
 * Reads the start of a body that no parser reads (its type is refused, or it is larger than the
 * limit, which Fastify refuses from its Content-Length without reading it): up to
 * BODY_PREVIEW_BYTES, then `done`; at once when it was read already. The rest still flows and is
 * dropped, as Node drops a body nobody reads (Fastify closes the connection after a parser's error).
 */
export function readBodyPreview (request: FastifyRequest, payload: Readable, done: (err: Error | null) => void): void {
  const counted = request as CountedRequest
  if (counted[PREVIEW_READ] === true) return done(null)
  counted[PREVIEW_READ] = true
  // A chunked body's counter keeps the preview as the chunks pass through it.
  const kept = counted[COUNTED] === undefined
  const preview = counted[PREVIEW] ??= { chunks: [], bytes: 0 }
  const stop = (): void => {
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onError)
  }
  const onData = (chunk: Buffer): void => {
    if (kept) addToPreview(counted, chunk)
    if (preview.bytes < BODY_PREVIEW_BYTES) return
    stop()
    // Still flowing, with no listener: the rest is read and dropped.
    payload.resume()
    done(null)
  }
  const onEnd = (): void => {
    stop()
    done(null)
  }
  const onError = (err: Error): void => {
    stop()
    done(err)
  }
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onError)
}

/**
 * The body's size in bytes: its Content-Length (Fastify refuses a body that does not match it),
 * else what was counted of a chunked body, else 0 (no body).
 */
export function receivedBodyBytes (request: FastifyRequest): number {
  const length = request.headers['content-length']
  if (length !== undefined && /^\d+$/.test(length)) return Number(length)
  return (request as CountedRequest)[COUNTED]?.bytes ?? 0
}

/** Whether receivedBodyBytes is the whole body's size: a chunked body not read to its end is larger. */
export function bodySizeKnown (request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  if (length !== undefined && /^\d+$/.test(length)) return true
  const count = (request as CountedRequest)[COUNTED]
  return count === undefined || count.ended
}

/** The first bytes of the body as sent, when they were kept (a copy of its own), else null. */
export function bodyPreview (request: FastifyRequest): Buffer | null {
  const preview = (request as CountedRequest)[PREVIEW]
  return preview === undefined || preview.bytes === 0 ? null : Buffer.concat(preview.chunks, preview.bytes)
}

/** Whether a request announces a body: a Content-Length other than 0, or a Transfer-Encoding. */
export function announcesBody (request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
}

/**
 * For preParsing, for a request whose body will be read (announcesBody, and a method with a body):
 * notes when its last byte has been read (one 'end' listener, which changes nothing of how the
 * body flows), for requestReceivedAt.
 */
export function noteBodyEnd (request: FastifyRequest, reply: FastifyReply, payload: Readable): void {
  const counted = request as CountedRequest
  counted[RECEIVED] = null
  payload.once('end', () => { counted[RECEIVED] = reply.elapsedTime })
}

/**
 * When the whole request had been received, on the reply's clock (reply.elapsedTime, from
 * onRequest): 0 for a request whose body is not read (none, a method without one, or answered
 * before its body was looked at), the body's end for one whose body is read, or null while that
 * body has not been read to its end (answered before it: refused for its size or type, cut by a
 * parser error or a timeout). The profiler's "slow" counts from here (issue #37): the time a client
 * takes to send its body is not the service's.
 */
export function requestReceivedAt (request: FastifyRequest): number | null {
  const received = (request as CountedRequest)[RECEIVED]
  return received === undefined ? 0 : received
}
