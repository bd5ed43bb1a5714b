import type { FastifyRequest } from 'fastify'
import { HttpError } from '../../lib/http-error.js'
import { INVALID_HOST, isValidHost } from './host.js'

const DEFAULT_PORT: Record<string, string> = { http: ':80', https: ':443' }

/**
 * The scheme the client used: Fastify's (X-Forwarded-Proto when the proxy is trusted), in lower
 * case; null when that is not http or https (routing answers it with a 400).
 */
function requestScheme (request: FastifyRequest): 'http' | 'https' | null {
  const scheme = (request.protocol ?? '').toLowerCase()
  return scheme === 'http' || scheme === 'https' ? scheme : null
}

/** A 400 naming X-Forwarded-Proto when it gave a scheme other than http or https. */
export function checkScheme (request: FastifyRequest): void {
  if (requestScheme(request) !== null) return
  throw new HttpError(400, `Invalid X-Forwarded-Proto "${request.protocol}": only http and https are a scheme.`, { name: 'SuspiciousOperationError' })
}

/** The scheme of the connection itself. */
function socketScheme (request: FastifyRequest): 'http' | 'https' {
  return (request.raw.socket as { encrypted?: boolean } | undefined)?.encrypted === true ? 'https' : 'http'
}

/**
 * `scheme://host[:port]` from a scheme and a Host (either may come from a client): the host in
 * lower case, a default port left out (each deployment reports its own host as users type it), an
 * empty host reported as localhost. A Host that is not a valid host[:port] is never copied:
 * INVALID_HOST stands for it.
 */
export function originOf (scheme: 'http' | 'https', given: string): string {
  let host = given === '' ? 'localhost' : isValidHost(given) ? given.toLowerCase() : INVALID_HOST
  const defaultPort = DEFAULT_PORT[scheme]
  if (defaultPort !== undefined && host.endsWith(defaultPort)) host = host.slice(0, -defaultPort.length)
  return `${scheme}://${host}`
}

/**
 * `scheme://host[:port]` of the request as the client addressed it (Host header;
 * X-Forwarded-Host/-Proto only when trustProxy is on, which Fastify handles). A forwarded scheme
 * other than http/https is never copied: the connection's own scheme stands for it.
 */
export function requestOrigin (request: FastifyRequest): string {
  return originOf(requestScheme(request) ?? socketScheme(request), request.host ?? '')
}

/** The raw request path (still percent-encoded as received) and the raw query string. */
export function splitUrl (url: string): { path: string, query: string } {
  const mark = url.indexOf('?')
  return mark === -1 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) }
}
