import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../../config.js'
import { describeTarget, type RetentionLimits, type StoreTarget } from './engine/contract.js'
import { openStoreReader } from './engine/open-reader.js'
import { withoutPassword } from '../../lib/postgres/url.js'
import { Redactor, type RedactionRules } from '../../lib/redact.js'
import { installRecorder } from './collect/recorder.js'
import { KEEP_EVERY_REQUEST, type SamplingOptions } from './collect/sampling.js'
import { keepHeader } from './collect/keep-header.js'
import { createLoginThrottle, type LoginRateLimit, type SecretLogin } from './login-throttle.js'
import { rejectionRecorder } from './collect/rejection-recorder.js'
import { profilerRoutes } from './pages/routes.js'
import type { AppDatabase } from './panels/panel.js'
import { DEFAULT_STORE_OPTIONS, ProfileStore, type StoreEvents, type StoreOptions } from './runtime/profile-store.js'
import { InlineWriter } from './writer/inline-writer.js'
import { WriterThread } from './runtime/writer-thread.js'
import type { AlertRules } from '../../lib/alerts/rules-file.js'
import { AlertService } from './alerts/alert-service.js'
import { openAlertStore } from './engine/open-alert-store.js'
import type { OtlpSettings } from '../../lib/otlp-environment.js'
import { DEFAULT_EXPORT_TUNING, type ExportTuning } from './export/otlp/exporter.js'

// The door (issue 41): the rest of the service reaches the profiler through this file only (an ESLint
// rule says so): the plugin and its options, the probes app.ts installs on the logger and the routes,
// and the body probes the body transformer (plugins/request-body/) calls as it reads a body.
export { installProbes, probeServerOptions } from './panels/probes.js'
export { announcesBody, countedPayload, keepBodyPreview, noteBodyEnd, readBodyPreview, receivedBodyBytes } from './collect/body-size.js'

export interface ProfilerOptions {
  /** The profiler's own store: a SQLite file or a PostgreSQL database. */
  target: StoreTarget
  /** This deployment's name, recorded with every profile. */
  deployment: string
  /** Where the writer runs: its own thread (the default), or inline on the request thread. */
  writer?: Config['profilerWriter']
  production: boolean
  /** The password of the /_profiler pages (HTTP Basic); null leaves them open. */
  secret: string | null
  /** Names redacted on top of the built-in ones. */
  redaction: RedactionRules
  /** Whichever bound is hit first, the oldest profiles go (in the background). */
  retention: RetentionLimits
  /** How often the background pruning looks at the bounds when idle. */
  retentionIntervalMs?: number
  /** SQLite: how long a statement waits for another connection's lock before the store counts as failing (5 s). */
  busyTimeoutMs?: number
  /** PostgreSQL: how long a statement may run (behind a lock, say) before it is cancelled and counts as a fault (reads 10 s, writes 30 s). */
  statementTimeoutMs?: number
  /** The queue's bound in estimated bytes (PROFILER_MAX_QUEUE_BYTES); `store.maxQueueBytes` overrides it. */
  maxQueueBytes?: number
  store?: Partial<StoreOptions>
  /** Wrong secrets (the pages' password and the keep header's, counted together) allowed per client address and window before they are refused (default 10 a minute). */
  loginRateLimit?: LoginRateLimit
  /** Which requests are kept as profiles (PROFILER_SAMPLE, PROFILER_KEEP_SLOWER_THAN); default every request. */
  sampling?: SamplingOptions
  /** Tests only: the sample's random source, [0, 1) (Math.random otherwise). */
  sampleRandom?: () => number
  /** Where tokens come from (tests pass a fixed sequence to prove collisions are handled). */
  tokenSource?: () => string
  /** The app's resolved configuration, for the per-process panels (the environment); redacted there. */
  configuration?: Readonly<Record<string, unknown>>
  /** The alert rules (PROFILER_ALERTS), evaluated in the background from the route statistics; null: none. */
  alerts?: AlertRules | null
  /** Where kept profiles are sent as traces (PROFILER_OTLP_ENDPOINT); null or absent: they are not. */
  otlp?: OtlpSettings | null
  /** The export's delays and bounds (tests shorten them). */
  otlpTuning?: Partial<ExportTuning>
  /** The service's version: the export's instrumentation scope names it. */
  version?: string
}

declare module 'fastify' {
  interface FastifyInstance {
    profileStore: ProfileStore
  }
}

const DROP_LOG_INTERVAL_MS = 10_000
/** The instrumentation scope of the spans the export sends. */
const EXPORT_SCOPE = 'profiled-api/profiler'
/** When this process started (the main thread's time origin), epoch ms: the same for every app it builds. */
const PROCESS_STARTED_AT_MS = Math.round(performance.timeOrigin)

/** The advisors' database (plugins/database.ts) as the panels' own pages read it: the SQLite file, or the PostgreSQL pool. */
function appDatabase (app: FastifyInstance): AppDatabase {
  const postgres = app.postgresDatabase
  const url = app.config.databaseUrl
  if (postgres !== null && url !== null) return { engine: 'postgres', where: withoutPassword(url), pool: async () => await postgres.get() }
  return { engine: 'sqlite', where: app.config.databasePath, path: app.config.databasePath }
}

/**
 * The request profiler: records every request into its own store (SQLite or PostgreSQL) and serves
 * /_profiler. Register it after routing-errors, so that its routes are known there.
 */
export default fp<ProfilerOptions>(async function profilerPlugin (app, options) {
  // The request thread reads (and migrates) on its own connection; the writer thread writes.
  // A store that cannot be opened does not stop the service: the profiler reports it and retries.
  const target: StoreTarget = options.target.engine === 'sqlite'
    ? (options.busyTimeoutMs === undefined ? options.target : { ...options.target, busyTimeoutMs: options.busyTimeoutMs })
    : (options.statementTimeoutMs === undefined ? options.target : { ...options.target, statementTimeoutMs: options.statementTimeoutMs })
  const where = describeTarget(target)
  const openReader = async () => await openStoreReader(target, message => { app.log.info(`Profiler store ${where}: ${message}`) }, options.writer === 'inline')
  // Dropped profiles are logged at most once every 10 s, with the count so far.
  let lastDropLog = 0
  const events: StoreEvents = {
    onDrop: reason => {
      const now = Date.now()
      if (now - lastDropLog < DROP_LOG_INTERVAL_MS) return
      lastDropLog = now
      app.log.warn(`profiler: ${store.dropped} profile(s) and ${store.statisticsDropped} request(s) of the statistics dropped so far; latest: ${reason}`)
    },
    error: message => { app.log.error(message) },
    info: message => { app.log.info(message) }
  }
  const Writer = options.writer === 'inline' ? InlineWriter : WriterThread
  const writer = new Writer(
    {
      target,
      deployment: options.deployment,
      redaction: options.redaction,
      retention: options.retention,
      retentionIntervalMs: options.retentionIntervalMs ?? 1000,
      process: { configuration: options.configuration ?? {}, deployment: options.deployment, startedAtMs: PROCESS_STARTED_AT_MS },
      ...(options.otlp === undefined || options.otlp === null
        ? {}
        : { export: { otlp: options.otlp, tuning: { ...DEFAULT_EXPORT_TUNING, ...options.otlpTuning }, scope: { name: EXPORT_SCOPE, version: options.version ?? '' } } })
    },
    message => {
      if (message.type === 'error') store.health.fail(message.message)
      else store.onWriterMessage(message)
    }
  )
  const store: ProfileStore = new ProfileStore(openReader, writer, { ...DEFAULT_STORE_OPTIONS, maxQueueBytes: options.maxQueueBytes ?? DEFAULT_STORE_OPTIONS.maxQueueBytes, ...options.store }, events, options.deployment)
  await store.open()
  app.decorate('profileStore', store)
  const sampling = { ...options.sampling ?? KEEP_EVERY_REQUEST, random: options.sampleRandom }
  const recorderOptions = { store, production: options.production, redactor: new Redactor(options.redaction), tokenSource: options.tokenSource }
  // One login limiter for the pages' password and the keep header (issue 37): a wrong secret counts
  // the same wherever it is tried, and an address locked out is locked out of both.
  const login: SecretLogin | null = options.secret === null ? null : { secret: options.secret, throttle: await createLoginThrottle(app, options.loginRateLimit) }
  installRecorder(app, { ...recorderOptions, sampling, keep: keepHeader(login) })
  // Requests the HTTP parser rejected (and CONNECT) never reach the hooks: recorded apart, sampled alike.
  app.addRejectionRecorder(rejectionRecorder({ ...recorderOptions, sampling }))
  const alerts = options.alerts === undefined || options.alerts === null
    ? null
    : new AlertService({
      rules: options.alerts,
      deployment: options.deployment,
      openStore: async () => await openAlertStore(target),
      routeStats: async (nowMs, windowMs, deployment) => await store.routeStats(nowMs, windowMs, deployment),
      log: { error: message => { app.log.error(message) }, info: message => { app.log.info(message) } }
    })
  await app.register(profilerRoutes, { prefix: '/_profiler', store, login, statsMaxAgeMs: options.retention.statsMaxAgeMs, sampling, appDatabase: appDatabase(app), alerts })
  if (alerts !== null) app.addHook('onReady', async () => { alerts.start() })
  app.addHook('onClose', async () => {
    await alerts?.close()
    await store.close()
  })
}, { name: 'profiler', dependencies: ['routing-errors', 'error-renderer', 'views', 'rejected-requests', 'database'] })
