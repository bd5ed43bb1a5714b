import { createHash, timingSafeEqual } from 'node:crypto'
import basicAuth from '@fastify/basic-auth'
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import { PAGE_CSP_DIRECTIVES } from '../../../lib/page-policy.js'
import { HttpError } from '../../../lib/http-error.js'
import { guardAgainstRebinding } from './rebinding-guard.js'
import type { SecretLogin } from '../login-throttle.js'

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

/**
 * Security of the /_profiler pages (call it inside their encapsulated plugin): strict headers
 * with a CSP that allows no script at all, and HTTP Basic authentication when a secret is set.
 * Only the Authorization header is read: a secret in the query string is never accepted.
 */
export async function securePages (app: FastifyInstance, login: SecretLogin | null): Promise<void> {
  await app.register(helmet, {
    // HSTS is the deployment's decision (it binds the whole host name), not the profiler's.
    strictTransportSecurity: false,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: PAGE_CSP_DIRECTIVES
    }
  })
  if (login === null) {
    guardAgainstRebinding(app)
    return
  }
  // Failed logins are counted per client address (only wrong passwords; successful page views and
  // the browser's first unauthenticated request are not), by the limiter the keep header's wrong
  // secrets count in too (login-throttle.ts). Past the limit every attempt from that address is a
  // 429 until the window has passed, the right secret included: guessing gets no answer.
  // Equal-length digests compared in constant time: neither length nor content leaks by timing.
  const { secret, throttle } = login
  const expected = digest(secret)
  await app.register(basicAuth, {
    authenticate: { realm: 'Profiler' },
    validate: async (_user, password, request) => {
      if (!timingSafeEqual(digest(password), expected)) {
        await throttle.fail(request)
        throw new HttpError(401, 'Wrong password for the profiler', { name: 'UnauthorizedError' })
      }
    }
  })
  app.addHook('onRequest', async request => {
    const seconds = await throttle.lockedForSeconds(request)
    if (seconds === 0) return
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
