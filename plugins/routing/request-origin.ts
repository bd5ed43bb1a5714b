import type { FastifyRequest } from 'fastify'
import { INVALID_HOST, isValidHost } from './host.js'

const DEFAULT_PORT: Record<string, string> = { http: ':80', https: ':443' }

/**
 * `scheme://host[:port]` of the request as the client addressed it (Host header;
 * X-Forwarded-Host/-Proto only when trustProxy is on, which Fastify handles), host in lower case.
 * A default port is left out, so each deployment reports its own host as users type it.
 * A Host that is not a valid host[:port] is never copied: INVALID_HOST stands for it.
 */
export function requestOrigin (request: FastifyRequest): string {
  const scheme = request.protocol
  const given = request.host ?? ''
  let host = given === '' ? 'localhost' : isValidHost(given) ? given.toLowerCase() : INVALID_HOST
  const defaultPort = DEFAULT_PORT[scheme]
  if (defaultPort !== undefined && host.endsWith(defaultPort)) host = host.slice(0, -defaultPort.length)
  return `${scheme}://${host}`
}

/** The raw request path (still percent-encoded as received) and the raw query string. */
export function splitUrl (url: string): { path: string, query: string } {
  const mark = url.indexOf('?')
  return mark === -1 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) }
}
