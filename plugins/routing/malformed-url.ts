import type { FastifyRequest, RawRequestDefaultExpression } from 'fastify'

// A path that cannot be percent-decoded makes Fastify's router give up before any hook runs:
// such a request would be neither rendered by our error renderer nor profiled. Instead, the
// server's rewriteUrl (request-target.ts) escapes its '%' signs (so that it routes like any unknown path) and marks
// it; routing-errors answers the mark with a 400, through the normal hooks.

const MALFORMED = Symbol('malformed percent-encoding')

type RawRequest = RawRequestDefaultExpression & { [MALFORMED]?: true }

/** The URL (origin-form) as is, or with the '%' of a malformed path escaped and the request marked. */
export function escapeMalformedPath (raw: RawRequest, url: string): string {
  const mark = url.indexOf('?')
  const path = mark === -1 ? url : url.slice(0, mark)
  if (!path.includes('%')) return url
  try {
    decodeURIComponent(path)
    return url
  } catch {
    raw[MALFORMED] = true
    return path.replaceAll('%', '%25') + url.slice(path.length)
  }
}

export function hasMalformedPath (request: FastifyRequest): boolean {
  return (request.raw as RawRequest)[MALFORMED] === true
}
