import type { FastifyRequest } from 'fastify'
import { HttpError } from '../../lib/http-error.js'

/** What absolute URLs and profiles carry instead of a Host that is not a valid host[:port] (RFC 2606 reserves .invalid). */
export const INVALID_HOST = 'invalid-host.invalid'
const MAX_HOST_LENGTH = 255

// A host name of dot-separated labels (letters, digits, '-', '_', an optional final dot) or a
// bracketed IPv6 address, then an optional port. Labels are separated by a dot the label class
// does not hold, so the match is linear in the input.
const VALID_HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?)(?::[0-9]{1,5})?$/

/** Whether a Host (as Fastify resolved it: the header, or X-Forwarded-Host when trusted) is a valid host[:port]. */
export function isValidHost (host: string): boolean {
  return host.length <= MAX_HOST_LENGTH && VALID_HOST.test(host)
}

/** The host name without its port, lower case. */
export function hostName (host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.lastIndexOf(':')
  return (end > 0 ? host.slice(0, end) : host).toLowerCase()
}

/** Whether the host Fastify resolved came from X-Forwarded-Host (a trusted proxy's) rather than Host. */
function isForwardedHost (request: FastifyRequest): boolean {
  return request.headers['x-forwarded-host'] !== undefined && request.host !== (request.headers.host ?? '')
}

/**
 * Symfony's answers to a bad Host: 400 `Invalid Host "<host>".` for one that is not a valid
 * host[:port] (`Invalid X-Forwarded-Host` when a trusted proxy's header gave it), and
 * `Untrusted Host "<host>".` for one that no TRUSTED_HOSTS pattern matches. HTTP/1.1 requires a
 * Host (RFC 9112 §3.2: a 400); an HTTP/1.0 request without one is reported as localhost.
 */
export function checkHost (request: FastifyRequest, trustedHosts: RegExp[]): void {
  const host = request.host
  if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
    throw new HttpError(400, 'The request has no Host header: HTTP/1.1 requires one.', { name: 'BadRequestError' })
  }
  if (host === '' || host === undefined) return
  if (!isValidHost(host)) {
    const header = isForwardedHost(request) ? 'X-Forwarded-Host' : 'Host'
    throw new HttpError(400, `Invalid ${header} "${host}".`, { name: 'SuspiciousOperationError' })
  }
  if (trustedHosts.length > 0) {
    const name = hostName(host)
    if (!trustedHosts.some(pattern => pattern.test(name))) {
      throw new HttpError(400, `Untrusted Host "${name}".`, { name: 'SuspiciousOperationError' })
    }
  }
}
