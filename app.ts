import accepts from '@fastify/accepts'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Config } from './config.js'
import advisors from './plugins/advisors/index.js'
import database from './plugins/database.js'
import errorRenderer from './plugins/error-renderer.js'
import jsonBody from './plugins/request-body.js'
import { logSerializers, profilerStatus } from './plugins/logging.js'
import profiler, { type ProfilerOptions } from './plugins/profiler/index.js'
import routingErrors from './plugins/routing/index.js'
import views from './plugins/views.js'
import { HttpError } from './lib/http-error.js'
import { escapeMalformedPath } from './plugins/routing/malformed-url.js'
import ccenterRoutes from './routes/ccenter/index.js'
import monitorRoutes from './routes/monitor/index.js'

declare module 'fastify' {
  interface FastifyInstance { config: Config }
}

export interface AppOverrides {
  /** Profiler settings beyond the config (queue sizes, a token source for tests). */
  profiler?: Partial<ProfilerOptions>
  /** Where log lines go (tests read them); standard output otherwise. */
  logStream?: { write: (line: string) => void }
}

/** The whole plugin tree; never listens (server.ts does). Tests call this and use inject(). */
export async function buildApp (config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, serializers: logSerializers(config), ...(overrides.logStream === undefined ? {} : { stream: overrides.logStream }) },
    // A path that cannot be decoded is answered 400 by routing-errors, hooks and profiler included.
    rewriteUrl: escapeMalformedPath,
    // Route parameters are bounded by their schemas; the router's own limit (100) would answer
    // before any hook, unprofiled.
    routerOptions: { maxParamLength: 16_384 },
    // Whatever else fails inside the router still goes through the error renderer (unprofiled:
    // these requests skip the hooks).
    frameworkErrors: (error, _request, reply) => {
      reply.send(new HttpError(400, error.message, { cause: error, name: 'BadRequestError' }) as never)
    },
    // Fastify also takes a hop count at run time; its types omit the number form.
    trustProxy: config.trustProxy as boolean | string[]
  })
  app.decorate('config', config)

  await app.register(accepts)
  await app.register(views)
  await app.register(errorRenderer)
  await app.register(jsonBody)
  // Before any route: it mirrors the route table to explain 404/405/301.
  await app.register(routingErrors)
  await app.register(database)
  await app.register(advisors)
  // After routing-errors (its routes must be mirrored), before the route groups (they inherit its hooks).
  if (config.profiler) {
    await app.register(profiler, {
      target: config.profilerDatabaseUrl === null ? { engine: 'sqlite', path: config.profilerDatabasePath } : { engine: 'postgres', url: config.profilerDatabaseUrl, partitionMs: config.profilerPartitionMs },
      deployment: config.profilerDeployment,
      production: config.production,
      secret: config.profilerSecret,
      redaction: { headers: config.profilerRedactHeaders, fields: config.profilerRedactFields },
      retention: { maxProfiles: config.profilerMaxProfiles, maxAgeMs: config.profilerMaxAgeMs, maxBytes: config.profilerMaxBytes },
      ...overrides.profiler
    })
  }

  app.log.info(profilerStatus(config))

  await app.register(ccenterRoutes, { prefix: '/ccenter' })
  await app.register(monitorRoutes, { prefix: '/monitor' })
  return app
}
