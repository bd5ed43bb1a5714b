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
function hostName (host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.lastIndexOf(':')
  return (end > 0 ? host.slice(0, end) : host).toLowerCase()
}

/**
 * Symfony's answers to a bad Host: 400 `Invalid Host "<host>".` for one that is not a valid
 * host[:port], and `Untrusted Host "<host>".` for one that no TRUSTED_HOSTS pattern matches.
 * An absent Host is left alone (it is reported as localhost).
 */
export function checkHost (request: FastifyRequest, trustedHosts: RegExp[]): void {
  const host = request.host
  if (host === '' || host === undefined) return
  if (!isValidHost(host)) {
    throw new HttpError(400, `Invalid Host "${host}".`, { name: 'SuspiciousOperationError' })
  }
  if (trustedHosts.length > 0) {
    const name = hostName(host)
    if (!trustedHosts.some(pattern => pattern.test(name))) {
      throw new HttpError(400, `Untrusted Host "${name}".`, { name: 'SuspiciousOperationError' })
    }
  }
}
