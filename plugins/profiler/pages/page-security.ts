import { createHash, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import basicAuth from '@fastify/basic-auth'
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import { templatesDir } from '../../../paths.js'
import { HttpError } from '../../../lib/http-error.js'

/** CSP hashes of the layout's inline <style> blocks: the only inline content the pages carry. */
function layoutStyleHashes (): string[] {
  const layout = readFileSync(join(templatesDir, 'layout.hbs'), 'utf8')
  return [...layout.matchAll(/<style>([\s\S]*?)<\/style>/g)]
    .map(([, css = '']) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`)
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

/**
 * Security of the /_profiler pages (call it inside their encapsulated plugin): strict headers
 * with a CSP that allows no script at all, and HTTP Basic authentication when a secret is set.
 * Only the Authorization header is read: a secret in the query string is never accepted.
 */
export async function securePages (app: FastifyInstance, secret: string | null): Promise<void> {
  await app.register(helmet, {
    // HSTS is the deployment's decision (it binds the whole host name), not the profiler's.
    strictTransportSecurity: false,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: layoutStyleHashes(),
        imgSrc: ["'self'", 'data:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"]
      }
    }
  })
  if (secret === null) return
  // Equal-length digests compared in constant time: neither length nor content leaks by timing.
  const expected = digest(secret)
  await app.register(basicAuth, {
    authenticate: { realm: 'Profiler' },
    validate: async (_user, password) => {
      if (!timingSafeEqual(digest(password), expected)) {
        throw new HttpError(401, 'Wrong password for the profiler', { name: 'UnauthorizedError' })
      }
    }
  })
  app.addHook('onRequest', app.basicAuth)
  app.addErrorRewording(error => error.code === 'FST_BASIC_AUTH_MISSING_OR_BAD_AUTHORIZATION_HEADER'
    ? new HttpError(401, 'This page requires HTTP Basic authentication', { cause: error, name: 'UnauthorizedError' })
    : undefined)
}
