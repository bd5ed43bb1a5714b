// X-Profiler-Keep: <PROFILER_SECRET> forces a request to be kept (issue #24), and is no oracle for
// the secret (issue #37): a wrong value counts as a failed login of its client address in the
// limiter the /_profiler pages' login counts in (login-throttle.ts), and while that address is
// locked out the header is ignored, right or wrong. The answer never says any of it: no 401 or
// 429 on a business route, only the X-Debug-Token headers a kept request gets anyway.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyRequest } from 'fastify'
import type { SecretLogin } from '../login-throttle.js'

/** The header that forces a request to be kept. Redacted wherever headers are kept (lib/redact.ts). */
const KEEP_HEADER = 'x-profiler-keep'

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

export interface KeepHeader {
  /**
   * Whether the request carries the header, whatever its value: asked for, not yet granted. One
   * header read, no comparison: a request without it pays nothing more.
   */
  asked: (headers: IncomingHttpHeaders) => boolean
  /**
   * Whether an asking request is kept for it: its value is the secret and its address is not
   * locked out. A wrong value is counted as a failed login. Never rejects.
   */
  granted: (request: FastifyRequest) => Promise<boolean>
}

/** The keep header's rules; null without a secret (the header then does nothing). */
export function keepHeader (login: SecretLogin | null): KeepHeader | null {
  if (login === null) return null
  const { secret, throttle } = login
  const expected = digest(secret)
  // The digests are compared (in constant time, and of equal length whatever was sent).
  const isSecret = (value: unknown): boolean => typeof value === 'string' && timingSafeEqual(digest(value), expected)
  return {
    asked: headers => headers[KEEP_HEADER] !== undefined,
    async granted (request) {
      try {
        // A wrong value is counted at once, before any read of the limiter: guesses sent together
        // are counted in the order they came, so the right one after them finds them counted.
        if (!isSecret(request.headers[KEEP_HEADER])) {
          await throttle.fail(request)
          return false
        }
        return await throttle.lockedForSeconds(request) === 0
      } catch {
        // The limiter failed: the header is ignored (the request is still sampled like any other).
        return false
      }
    }
  }
}
