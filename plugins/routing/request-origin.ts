import type { FastifyRequest } from 'fastify'

const DEFAULT_PORT: Record<string, string> = { http: ':80', https: ':443' }

/**
 * `scheme://host[:port]` of the request as the client addressed it (Host header;
 * X-Forwarded-Host/-Proto only when trustProxy is on, which Fastify handles).
 * A default port is left out, so each deployment reports its own host as users type it.
 */
export function requestOrigin (request: FastifyRequest): string {
  const scheme = request.protocol
  let host = request.host === '' ? 'localhost' : request.host
  const defaultPort = DEFAULT_PORT[scheme]
  if (defaultPort !== undefined && host.endsWith(defaultPort)) host = host.slice(0, -defaultPort.length)
  return `${scheme}://${host}`
}

/** The raw request path (still percent-encoded as received) and the raw query string. */
export function splitUrl (url: string): { path: string, query: string } {
  const mark = url.indexOf('?')
  return mark === -1 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) }
}
