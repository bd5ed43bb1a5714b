import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { HttpError } from '../../lib/http-error.js'
import { checkHost } from './host.js'
import { hasMalformedPath } from './malformed-url.js'
import { checkScheme, requestOrigin, splitUrl } from './request-origin.js'
import { checkTarget, originFormTarget } from './request-target.js'
import { RouteMirror } from './route-mirror.js'

/** What the router tried when no route matched; the profiler's router panel shows it. */
interface RoutingFailure {
  outcome: 'redirect' | 'method-not-allowed' | 'not-found'
  method: string
  path: string
  /** The trailing-slash twin tried for GET/HEAD, or null. */
  twinPath: string | null
  allowedMethods: string[]
}

declare module 'fastify' {
  interface FastifyRequest { routingFailure: RoutingFailure | null }
}

/** The twin of a path: slash appended, or trailing slashes removed; none for the root. */
function trailingSlashTwin (path: string): string | null {
  const trimmed = path.replace(/\/+$/, '')
  if (trimmed === '') return null
  return trimmed === path ? `${path}/` : trimmed
}

function notFoundMessage (request: FastifyRequest, absoluteUrl: string): string {
  const referer = request.headers.referer
  const from = referer === undefined || referer === '' ? '' : ` (from "${referer}")`
  return `No route found for "${request.method} ${absoluteUrl}"${from}`
}

function explainMiss (mirror: RouteMirror, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { path, query } = splitUrl(request.url)
  const method = request.method
  const origin = requestOrigin(request)
  const absoluteUrl = origin + path
  const allowedMethods = mirror.allowedMethods(path)
  const getLike = method === 'GET' || method === 'HEAD'
  const twinPath = getLike && allowedMethods.length === 0 ? trailingSlashTwin(path) : null
  const failure: RoutingFailure = { outcome: 'not-found', method, path, twinPath, allowedMethods }
  request.routingFailure = failure

  if (allowedMethods.length > 0) {
    failure.outcome = 'method-not-allowed'
    const allow = allowedMethods.join(', ')
    throw new HttpError(405, `No route found for "${method} ${absoluteUrl}": Method Not Allowed (Allow: ${allow})`, {
      name: 'MethodNotAllowedHttpError',
      headers: { allow },
      cause: new HttpError(405, `Method ${method} is not allowed for "${path}" (allowed: ${allow}).`, { name: 'MethodNotAllowedError' })
    })
  }
  if (twinPath !== null && mirror.matches('GET', twinPath)) {
    failure.outcome = 'redirect'
    const location = origin + twinPath + (query === '' ? '' : `?${query}`)
    return reply.redirect(location, 301)
  }
  throw new HttpError(404, notFoundMessage(request, absoluteUrl), {
    name: 'NotFoundHttpError',
    cause: new HttpError(404, `No routes found for "${twinPath ?? path}".`, { name: 'ResourceNotFoundError' })
  })
}

/**
 * Routing failures, worded as our clients expect: 405 with Allow, 301 to a trailing-slash
 * twin for GET/HEAD, else 404 whose cause is the underlying match failure.
 * Answered in onRequest, before any body is read: an unknown path is a 404 whatever its body.
 */
export default fp(async function routingErrorsPlugin (app) {
  const mirror = new RouteMirror()
  app.decorateRequest('routingFailure', null)
  app.addHook('onRoute', route => {
    mirror.add(Array.isArray(route.method) ? route.method : [route.method], route.url ?? route.path)
  })
  const trustedHosts = app.config.trustedHosts
  app.addHook('onRequest', async (request, reply) => {
    checkScheme(request)
    checkHost(request, trustedHosts)
    checkTarget(request)
    if (hasMalformedPath(request)) {
      // Quoted as the service reports it: an absolute-form target by its path (its host is the Host's).
      throw new HttpError(400, `The request URL is not valid: '${originFormTarget(request)}' has a malformed percent-encoding`, { name: 'BadRequestError' })
    }
    if (request.is404) return explainMiss(mirror, request, reply)
  })
}, { name: 'routing-errors' })
