import accepts from '@fastify/accepts'
import compress from '@fastify/compress'
import underPressure from '@fastify/under-pressure'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Config } from './config.js'
import advisors from './plugins/advisors/index.js'
import apiDocs from './plugins/api-docs.js'
import database, { type DatabaseOptions } from './plugins/database.js'
import errorRenderer from './plugins/error-renderer.js'
import jsonBody from './plugins/request-body/index.js'
import { logSerializers, profilerStatus, redactingLogMethod } from './lib/logging.js'
import profiler, { installProbes, probeServerOptions, type ProfilerOptions } from './plugins/profiler/index.js'
import rejectedRequests, { answerClientError } from './plugins/rejected-requests/index.js'
import routingErrors from './plugins/routing/index.js'
import missCompression from './plugins/routing/miss-compression.js'
import views from './plugins/views.js'
import { HttpError } from './lib/http-error.js'
import { redactionRules } from './lib/redact.js'
import { shownOtlp } from './lib/otlp-environment.js'
import { routableUrl } from './plugins/routing/request-target.js'
import { ROUTER_OPTIONS } from './plugins/routing/route-mirror.js'
import { serializerCompiler, validatorCompiler } from './schema-compilers.js'
import ccenterRoutes from './routes/ccenter/index.js'
import monitorRoutes from './routes/monitor/index.js'

declare module 'fastify' {
  interface FastifyInstance { config: Config }
}

/** Seconds a shed client is asked to wait. */
const SHED_RETRY_AFTER_S = 10
/** Only answers of 1 KiB and more are compressed (see where @fastify/compress is registered). */
const COMPRESSION = { threshold: 1024 }

export interface AppOverrides {
  /** Profiler settings beyond the config (queue sizes, a token source for tests). */
  profiler?: Partial<ProfilerOptions>
  /** Business database settings beyond the config (a short retry delay for tests). */
  database?: DatabaseOptions
  /** Where log lines go (tests read them); standard output otherwise. */
  logStream?: { write: (line: string) => void }
}

/** The whole plugin tree; never listens (server.ts does). Tests call this and use inject(). */
export async function buildApp (config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  // What the profiler's panels need of Fastify when it is made (the logs panel's: request loggers at
  // the capture's level, the console still at LOG_LEVEL; panels/logs/probe.ts).
  const probed = config.profiler
    ? probeServerOptions({ consoleLevel: config.logLevel, captureLevel: config.profilerLogLevel, sampling: config.profilerSample < 1 })
    : {}
  const app = Fastify({
    schemaController: { compilersFactory: { buildValidator: validatorCompiler, buildSerializer: serializerCompiler } },
    logger: {
      level: probed.loggerLevel ?? config.logLevel,
      serializers: logSerializers(config),
      // The console's lines redacted whatever a call passes (the logs panel's capture, if any, inside).
      hooks: { ...probed.loggerHooks, logMethod: redactingLogMethod(config, probed.loggerHooks?.logMethod) },
      ...(overrides.logStream === undefined ? {} : { stream: overrides.logStream })
    },
    ...(probed.childLoggerFactory === undefined ? {} : { childLoggerFactory: probed.childLoggerFactory }),
    ...(probed.logController === undefined ? {} : { logController: probed.logController }),
    // A path that cannot be decoded, a target that is not a path: answered 400 by routing-errors,
    // hooks and profiler included; an absolute-form target is routed by its path.
    rewriteUrl: routableUrl,
    // The same options build the route mirror (routing errors).
    routerOptions: ROUTER_OPTIONS,
    // Whatever else fails inside the router still goes through the error renderer (unprofiled:
    // these requests skip the hooks).
    frameworkErrors: (error, _request, reply) => {
      reply.send(new HttpError(400, error.message, { cause: error, name: 'BadRequestError' }) as never)
    },
    // What Node's HTTP parser rejects (and requests that time out) is answered by rejected-requests,
    // with the error renderer's shape and a profile (Fastify's default is a bare "Client Error").
    clientErrorHandler: answerClientError,
    // Fastify also takes a hop count at run time; its types omit the number form.
    trustProxy: config.trustProxy as boolean | string[],
    // A client that sends slowly is cut off (Fastify's requestTimeout and connectionTimeout
    // default to no limit). Node checks these every connectionsCheckingInterval (30 s by default):
    // checked every second, a bound is kept within a second.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // A missing Host is answered by routing-errors (Node's own 400 has no body and no profile).
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000, requireHostHeader: false },
    // A plugin's start is given a minute, not avvio's 10 s: the profiler's starts threads and opens
    // and migrates its store, which on a busy 2-core machine (or with a tracing SDK preloaded) took
    // over 10 s and refused the whole start for nothing. A plugin that never calls back still fails.
    pluginTimeout: 60_000,
    ajv: {
      customOptions: {
        // No type coercion: {"code": true} is a 400 that names the field, not the code "true".
        coerceTypes: false,
        // Unknown body keys are dropped where a schema says additionalProperties: false (Fastify's
        // default, kept on purpose: handlers only see declared fields); elsewhere they pass untouched.
        removeAdditional: true,
        useDefaults: true,
        allErrors: false
      }
    }
  })
  app.decorate('config', config)
  // The panels' probes (the timeline's hook timings): before any plugin, so that every hook added is timed.
  if (config.profiler) installProbes(app)

  // First: it adds its onSend to each route added after it, as a route hook, and route hooks run
  // after the app's (the profiler's onSend sees the answer before it is compressed and sets
  // X-Debug-Token first). Only answers of 1 KiB and more are compressed (the plugin's threshold):
  // the business API's small JSON answers go as they are; the pages, the HAR files and the
  // reference page's 1.5 MiB of Swagger UI go compressed (br or gzip, as the client accepts).
  await app.register(compress, COMPRESSION)
  await app.register(accepts)
  await app.register(views)
  await app.register(errorRenderer)
  await app.register(rejectedRequests)
  await app.register(jsonBody)
  // Before any route: it mirrors the route table to explain 404/405/301.
  await app.register(routingErrors)
  await app.register(database, overrides.database ?? {})
  await app.register(advisors)
  // After routing-errors (its routes must be mirrored), before the route groups (they inherit its hooks).
  if (config.profiler) {
    await app.register(profiler, {
      target: config.profilerDatabaseUrl === null ? { engine: 'sqlite', path: config.profilerDatabasePath } : { engine: 'postgres', url: config.profilerDatabaseUrl, partitionMs: config.profilerPartitionMs },
      deployment: config.profilerDeployment,
      writer: config.profilerWriter,
      production: config.production,
      secret: config.profilerSecret,
      sampling: { sample: config.profilerSample, keepSlowerThanMs: config.profilerKeepSlowerThanMs },
      redaction: redactionRules(config),
      retention: { maxProfiles: config.profilerMaxProfiles, maxAgeMs: config.profilerMaxAgeMs, maxBytes: config.profilerMaxBytes, statsMaxAgeMs: config.profilerStatsMaxAgeMs },
      maxQueueBytes: config.profilerMaxQueueBytes,
      alerts: config.profilerAlerts,
      otlp: config.profilerOtlp,
      version: config.version,
      // The alert rules hold webhook URLs and secrets: the environment panel shows the file's path only;
      // the OTLP headers hold credentials: it shows their names only.
      configuration: { ...Object.fromEntries(Object.entries(config).filter(([name]) => name !== 'profilerAlerts')), profilerOtlp: shownOtlp(config.profilerOtlp) },
      ...overrides.profiler
    })
  }

  // Routing misses (404, 405) are no route, so compress's route hook never sees them: they are
  // compressed here with the same settings, after the profiler's onSend (which reads the answer
  // before it is compressed, as on routes).
  await app.register(missCompression, COMPRESSION)

  app.log.info(profilerStatus(config))

  // Before the route groups: it collects their schemas as they are added.
  await app.register(apiDocs, { version: config.version, reference: config.apiReference })

  await app.register(ccenterRoutes, { prefix: '/ccenter' })
  await app.register(monitorRoutes, { prefix: '/monitor' })
  // Load shedding: past the event-loop-delay bound new requests get a 503 with Retry-After (still
  // profiled: the error goes through the error renderer and the profiler's onSend/onResponse).
  // Registered last: its first sample would otherwise include the start-up work (migrations,
  // templates, the writer thread), and a slow start shed the first requests. Its onRequest hook
  // still applies to every route (route hooks are assembled when the app is ready).
  if (config.maxEventLoopDelayMs > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: config.maxEventLoopDelayMs,
      retryAfter: SHED_RETRY_AFTER_S,
      // The delay itself is not quoted: it is Infinity when the loop was blocked for a whole sample.
      pressureHandler: async () => {
        throw new HttpError(503, `The service is overloaded (event-loop delay over ${config.maxEventLoopDelayMs} ms): retry in ${SHED_RETRY_AFTER_S} s`, {
          name: 'ServiceUnavailableError',
          headers: { 'retry-after': String(SHED_RETRY_AFTER_S) }
        })
      }
    })
  }
  return app
}
