import { createHash, timingSafeEqual } from 'node:crypto'
import basicAuth from '@fastify/basic-auth'
import helmet from '@fastify/helmet'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { PAGE_CSP_DIRECTIVES } from '../../../lib/page-policy.js'
import { HttpError } from '../../../lib/http-error.js'
import { guardAgainstRebinding } from './rebinding-guard.js'

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

/** Wrong passwords allowed per client address (throttleAddress) and window before every login from that IP is refused (429). */
export interface LoginRateLimit { maxFailures: number, windowMs: number }
const DEFAULT_LOGIN_RATE_LIMIT: LoginRateLimit = { maxFailures: 10, windowMs: 60_000 }

/**
 * The address failed logins are counted against: one the client cannot choose. With TRUST_PROXY
 * as a list of proxy addresses, Fastify's request.ip is the first hop, from the connection
 * backwards, that is not a listed proxy: the address the nearest listed proxy wrote, or the
 * connection's own. With TRUST_PROXY=on every X-Forwarded-For entry is believed, so request.ip is
 * whatever the client wrote first (rotating it escaped the limit): the connection's address is
 * counted instead (behind a proxy, the proxy's: list the proxy to count its clients one by one).
 */
function throttleAddress (request: FastifyRequest, trustProxy: FastifyInstance['config']['trustProxy']): string {
  return (Array.isArray(trustProxy) ? request.ip : request.raw.socket.remoteAddress) ?? ''
}

/**
 * Security of the /_profiler pages (call it inside their encapsulated plugin): strict headers
 * with a CSP that allows no script at all, and HTTP Basic authentication when a secret is set.
 * Only the Authorization header is read: a secret in the query string is never accepted.
 */
export async function securePages (app: FastifyInstance, secret: string | null, loginLimit = DEFAULT_LOGIN_RATE_LIMIT): Promise<void> {
  await app.register(helmet, {
    // HSTS is the deployment's decision (it binds the whole host name), not the profiler's.
    strictTransportSecurity: false,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: PAGE_CSP_DIRECTIVES
    }
  })
  if (secret === null) {
    guardAgainstRebinding(app)
    return
  }
  // Failed logins are counted per client IP (only wrong passwords; successful page views and the
  // browser's first unauthenticated request are not). Past the limit every attempt from that IP
  // is a 429 until the window has passed, the right secret included: guessing gets no answer.
  await app.register(rateLimit, { global: false })
  const trustProxy = app.config.trustProxy
  const failures = app.createRateLimit({
    max: loginLimit.maxFailures,
    timeWindow: loginLimit.windowMs,
    keyGenerator: request => throttleAddress(request, trustProxy)
  })
  // Equal-length digests compared in constant time: neither length nor content leaks by timing.
  const expected = digest(secret)
  await app.register(basicAuth, {
    authenticate: { realm: 'Profiler' },
    validate: async (_user, password, request) => {
      if (!timingSafeEqual(digest(password), expected)) {
        await failures(request)
        throw new HttpError(401, 'Wrong password for the profiler', { name: 'UnauthorizedError' })
      }
    }
  })
  app.addHook('onRequest', async request => {
    const state = await failures(request, { increment: false })
    if (state.isAllowed || state.remaining > 0) return
    const seconds = Math.max(1, state.ttlInSeconds)
    throw new HttpError(429, `Too many failed logins from this address: try again in ${seconds} s`, {
      name: 'TooManyRequestsError',
      headers: { 'retry-after': String(seconds) }
    })
  })
  app.addHook('onRequest', app.basicAuth)
  app.addErrorRewording(error => error.code === 'FST_BASIC_AUTH_MISSING_OR_BAD_AUTHORIZATION_HEADER'
    ? new HttpError(401, 'This page requires HTTP Basic authentication', { cause: error, name: 'UnauthorizedError' })
    : undefined)
}
