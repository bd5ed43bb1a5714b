// How many bytes of body a request carried, as the client sent them (before any parsing): what the
// profiler records as "no body" (0) and as a truncated body's size.
import { pipeline, Transform, type Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'

const COUNTED = Symbol('body bytes counted')

type CountedRequest = FastifyRequest & { [COUNTED]?: { bytes: number } }

/**
 * The payload a preParsing hook hands on: a chunked body (no Content-Length to tell its size)
 * through a counter; any other payload as it is. Fastify reads `receivedEncodedLength` from the
 * stream it gets for its body limit, so the counter keeps it.
 */
export function countedPayload (request: FastifyRequest, payload: Readable): Readable {
  if (request.headers['transfer-encoding'] === undefined) return payload
  const count = { bytes: 0 }
  ;(request as CountedRequest)[COUNTED] = count
  const counter = new Transform({
    transform (chunk: Buffer, _encoding, next) {
      count.bytes += chunk.length
      ;(counter as Transform & { receivedEncodedLength: number }).receivedEncodedLength = count.bytes
      next(null, chunk)
    }
  })
  // An aborted request fails the counter too (the parser then stops waiting for it).
  pipeline(payload, counter, () => {})
  return counter
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
