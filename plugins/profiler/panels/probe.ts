// The request thread's half of a panel (its probe): what the panel takes of each request, in the
// few places the profiler lets it (panels/probes.ts calls them), and nothing else. A probe keeps
// raw values by reference, on performance.now()'s clock: it formats, redacts and serialises
// nothing (the writer thread's collect() does). Its cost is paid by every profiled request.
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import type { LevelWithSilent, LoggerOptions } from 'pino'

/** What a probe may know of the service's settings when the app is made. */
export interface ProbeSettings {
  /** LOG_LEVEL: what the console prints. */
  consoleLevel: LevelWithSilent
  /** PROFILER_LOG_LEVEL: the lowest level the logs panel keeps. */
  captureLevel: LevelWithSilent
  /** Whether the sample may leave requests out (PROFILER_SAMPLE under 1). */
  sampling: boolean
}

/** Fastify's options a probe sets when the app is made (the logs panel's): at most one probe sets each. */
export interface ProbeServerOptions {
  /** The root logger's level (the console's is applied by the probe's hooks). */
  loggerLevel?: LevelWithSilent
  loggerHooks?: NonNullable<LoggerOptions['hooks']>
  childLoggerFactory?: FastifyServerOptions['childLoggerFactory']
  logController?: FastifyServerOptions['logController']
}

export interface PanelProbe<Taken> {
  /** Fastify's options the probe needs (set once, when the app is made). */
  serverOptions? (settings: ProbeSettings): ProbeServerOptions
  /** On the root instance, before any plugin is registered (the timeline's hook timing). */
  install? (app: FastifyInstance): void
  /** When the handler is about to run on a profiled route (the db panel's statement log). */
  beforeHandler? (request: FastifyRequest): void
  /** An entry of the Server-Timing header of a kept request (`db;dur=0.120;desc="1 query"`), or null. */
  serverTiming? (request: FastifyRequest): string | null
  /** What the panel keeps of a finished, kept request (onResponse): references, no copies; undefined: nothing. */
  take (request: FastifyRequest, reply: FastifyReply): Taken | undefined
  /** Estimated bytes of what take() gave, for the queue's byte bound (bounded by the probe's own caps). */
  bytes? (taken: Taken): number
}
