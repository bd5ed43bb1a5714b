// The logs panel on the request thread: a request's log lines, taken without formatting or
// serialising anything. pino's logMethod hook sees each call's arguments before pino turns them
// into JSON, and each request's child logger (Fastify's childLoggerFactory) carries the request's
// capture. The logger's level is the lower of LOG_LEVEL and PROFILER_LOG_LEVEL; the hook passes a
// line on to pino only at LOG_LEVEL and above, so the console prints what it printed before, and a
// line the console does not want is never serialised. Fastify's own two lines of every request
// ("incoming request", "request completed") are taken by its LogController when the console does
// not print them: a time and a value each, not a call through pino. The writer thread formats and
// redacts (index.ts).
import type { IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import type { FastifyReply, FastifyRequest, LogController } from 'fastify'
import { levels, type LevelWithSilent } from 'pino'
import { UNSERIALIZABLE } from '../../../../lib/logging.js'
import type { PanelProbe, ProbeServerOptions, ProbeSettings } from '../probe.js'

/** Lines kept per request at most; the rest are counted. */
const MAX_LOG_LINES = 100
/** Estimated bytes of the lines kept per request at most (strings by length, 8 a value). */
const MAX_LOG_BYTES = 16 * 1024
/** Values copied from one line at most, and how deep. */
const MAX_VALUES = 200
const MAX_DEPTH = 4
const VALUE_BYTES = 8
const INFO = levels.values.info ?? 30
const WARN = levels.values.warn ?? 40
const ERROR = levels.values.error ?? 50

/** Slots a line takes in RequestLogs.lines: its time, level, message, arguments and fields. */
export const LINE_SLOTS = 5
/**
 * The arguments' slot of Fastify's own lines, taken by the LogController: the fields slot then
 * holds the request's URL ("incoming request": `req` is the request's method and that URL) or
 * the response time ("request completed": `res` is the response's status and `responseTime` that).
 */
export const FASTIFY_INCOMING = 1
export const FASTIFY_COMPLETED = 2
/**
 * The message of each of Fastify's own lines, by its kind: the capture holds the kind and leaves the
 * message slot undefined (strings are what the structured clone pays most for), and the writer puts
 * the message back (unpack-lines.ts) before the panel reads the lines.
 */
export const FASTIFY_MESSAGES: Readonly<Record<number, string>> = { [FASTIFY_INCOMING]: 'incoming request', [FASTIFY_COMPLETED]: 'request completed' }

/**
 * One log call as given (not formatted, not redacted), in LINE_SLOTS slots of RequestLogs.lines:
 * - its time on performance.now()'s clock;
 * - pino's number of the level (30: info);
 * - the message or its format template, as given (undefined: none, or one of Fastify's own lines until the writer puts its message back);
 * - the values of the template's placeholders, plain copies (undefined: none), or FASTIFY_INCOMING / FASTIFY_COMPLETED;
 * - the call's own fields (its merging object, or `err` for an Error), plain copies (undefined: none), or Fastify's value.
 * Five slots of one array rather than an object per line: the capture crosses to the writer thread
 * by structured clone, which pays per object and per key.
 */
export type CapturedLine = [atMs: number, level: number, message: string | undefined, args: unknown[] | number | undefined, fields: unknown]

/** What the request logged at PROFILER_LOG_LEVEL and above: the first lines, and counts of all. */
export interface RequestLogs {
  /** The sample's draw for the request, made with its logger; null: no draw was made here (the profiler's recorder is not installed). */
  drawn: boolean | null
  /** The lowest level captured: PROFILER_LOG_LEVEL, or warn for a request the sample left out (it is kept only if a rule keeps it). */
  fromLevel: number
  /** The kept lines, LINE_SLOTS slots each (CapturedLine). */
  lines: unknown[]
  /** Estimated bytes of `lines`. */
  bytes: number
  /** Lines beyond the caps (MAX_LOG_LINES, MAX_LOG_BYTES): not kept, counted. */
  omitted: number
  /** Lines at warn, and at error or fatal, kept or not. */
  warnings: number
  errors: number
}

const REQUEST_LOGS = Symbol('profiler.requestLogs')
interface CapturingLogger { [REQUEST_LOGS]?: RequestLogs }

/** The sample's draw of a request from its raw message (recorder.ts decorates the root instance with it). */
type RequestDraw = (raw: IncomingMessage) => boolean
declare module 'fastify' {
  interface FastifyInstance {
    /** The profiler's draw, made when a request's logger is made; absent without the profiler's recorder. */
    profilerDraw?: RequestDraw
  }
}

/** The capture of a request's logger (request.log): undefined when its logs are not captured. */
function requestLogs (logger: object): RequestLogs | undefined {
  return (logger as CapturingLogger)[REQUEST_LOGS]
}

const levelValue = (level: LevelWithSilent): number => level === 'silent' ? Infinity : levels.values[level] ?? Infinity

interface Budget { bytes: number, values: number }

/** A name and message of an error, its stack and code: what pino's serializer prints of it. */
function plainError (error: Error, budget: Budget): Record<string, unknown> {
  const plain: Record<string, unknown> = { type: error.name, message: error.message }
  budget.bytes -= error.name.length + error.message.length
  if (error.stack !== undefined) {
    plain.stack = error.stack
    budget.bytes -= error.stack.length
  }
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' || typeof code === 'number') plain.code = code
  return plain
}

/**
 * A plain copy (structured-clonable: the batch goes to the writer thread) of a logged value, its
 * strings kept as references; what is not plain data is named, not walked (a socket, a class).
 */
function plainValue (value: unknown, budget: Budget, depth: number): unknown {
  budget.values--
  if (typeof value === 'string') {
    budget.bytes -= value.length
    return value
  }
  budget.bytes -= VALUE_BYTES
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value
  if (typeof value !== 'object') return `[${typeof value}]`
  if (value instanceof Error) return plainError(value, budget)
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (depth >= MAX_DEPTH) return '[too deep]'
  if (Array.isArray(value)) {
    const copy: unknown[] = []
    for (const item of value) {
      if (budget.bytes < 0 || budget.values < 0) break
      copy.push(plainValue(item, budget, depth + 1))
    }
    return copy
  }
  const prototype = Object.getPrototypeOf(value) as unknown
  if (prototype !== Object.prototype && prototype !== null) return `[${(value.constructor as { name?: string } | undefined)?.name ?? 'object'}]`
  return plainObject(value as Record<string, unknown>, budget, depth)
}

function plainObject (object: Record<string, unknown>, budget: Budget, depth: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const key in object) {
    if (budget.bytes < 0 || budget.values < 0) break
    budget.bytes -= key.length
    copy[key] = plainValue(object[key], budget, depth + 1)
  }
  return copy
}

/**
 * A call's fields: Fastify's own `req` and `res` (the request and the reply objects) as the log
 * serializers print them, the rest as plain copies.
 */
function plainFields (fields: Record<string, unknown>, budget: Budget): Record<string, unknown> {
  const { req, res, ...rest } = fields
  const copy = plainObject(rest, budget, 0)
  if (req !== undefined) {
    const { method, url } = req as { method?: unknown, url?: unknown }
    copy.req = typeof method === 'string' && typeof url === 'string' ? { method, url } : plainValue(req, budget, 1)
  }
  if (res !== undefined) {
    const { statusCode } = res as { statusCode?: unknown }
    copy.res = typeof statusCode === 'number' ? { statusCode } : plainValue(res, budget, 1)
  }
  return copy
}

/** Whether one more line is kept (counted either way); once one was left out, every later one is too. */
function roomForLine (logs: RequestLogs, level: number): boolean {
  if (level >= ERROR) logs.errors++
  else if (level >= WARN) logs.warnings++
  if (logs.omitted > 0 || logs.lines.length >= MAX_LOG_LINES * LINE_SLOTS) {
    logs.omitted++
    return false
  }
  return true
}

/** Adds one log call to the request's capture, within the caps; never throws. */
function captureLine (logs: RequestLogs, args: unknown[], level: number): void {
  if (!roomForLine(logs, level)) return
  const budget: Budget = { bytes: MAX_LOG_BYTES - logs.bytes, values: MAX_VALUES }
  const [first, second] = args
  let message: string | undefined
  let values: unknown[] | undefined
  let fields: Record<string, unknown> | undefined
  const rest = (from: number): unknown[] | undefined => args.length <= from ? undefined : args.slice(from).map(arg => plainValue(arg, budget, 1))
  try {
    if (typeof first === 'object' && first !== null) {
      fields = first instanceof Error ? { err: plainError(first, budget) } : plainFields(first as Record<string, unknown>, budget)
      message = typeof second === 'string' ? second : first instanceof Error ? first.message : undefined
      values = rest(2)
    } else {
      message = first === undefined ? undefined : typeof first === 'string' ? first : String(first)
      values = rest(1)
    }
    budget.bytes -= message?.length ?? 0
  } catch (err) {
    // A getter that throws: the line is kept, its values named by the marker (as the console's).
    message = typeof second === 'string' ? second : undefined
    values = undefined
    fields = { [UNSERIALIZABLE]: err instanceof Error ? err.name : typeof err }
  }
  if (budget.bytes < 0 || budget.values < 0) {
    logs.omitted++
    return
  }
  logs.lines.push(performance.now(), level, message, values, fields)
  logs.bytes = MAX_LOG_BYTES - budget.bytes
}

/** Estimated bytes of one of Fastify's own lines (its message and a value). */
const FASTIFY_LINE_BYTES = 32

/** Adds one of Fastify's own lines at info (kind: FASTIFY_INCOMING or FASTIFY_COMPLETED), within the caps; its message is the kind's (FASTIFY_MESSAGES). */
function captureFastifyLine (request: FastifyRequest, kind: number, value: unknown): void {
  const logs = requestLogs(request.log)
  // A route's own log level above info (Fastify gives it to the request's logger) drops it as pino would.
  if (logs === undefined || INFO < logs.fromLevel || (request.log as unknown as { levelVal: number }).levelVal > INFO || !roomForLine(logs, INFO)) return
  if (logs.bytes + FASTIFY_LINE_BYTES > MAX_LOG_BYTES) {
    logs.omitted++
    return
  }
  logs.lines.push(performance.now(), INFO, undefined, kind, value)
  logs.bytes += FASTIFY_LINE_BYTES
}

/**
 * Fastify's own lines of every request, when the console does not print them: taken here as a
 * time and a value each, where going through pino would call the hook with Fastify's objects and
 * copy their fields. Any other line of Fastify's goes through pino as before. Made when the app is
 * (the writer thread, which reads this module for its constants, never loads Fastify). The app sets
 * neither `disableRequestLogging` nor `requestIdLogLabel`, which Fastify reads from the controller
 * once one is given: pass them here if it ever does.
 */
function capturingLogController (): LogController {
  const Base = (createRequire(import.meta.url)('fastify') as { LogController: typeof LogController }).LogController
  class CapturingLogController extends Base {
    override incomingRequest (request: FastifyRequest, _reply: FastifyReply): void {
      if (this.isLogDisabled(request)) return
      captureFastifyLine(request, FASTIFY_INCOMING, request.url)
    }

    override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
      if (error !== null && error !== undefined) {
        super.requestCompleted(error, request, reply)
        return
      }
      if (this.isLogDisabled(request)) return
      captureFastifyLine(request, FASTIFY_COMPLETED, reply.elapsedTime)
    }
  }
  return new CapturingLogController()
}

/** The more verbose of two levels (pino's lower number). */
const verbose = (a: LevelWithSilent, b: LevelWithSilent): LevelWithSilent => levelValue(a) <= levelValue(b) ? a : b

/**
 * The capture at `captureLevel` and above, the console at `consoleLevel` and above (as without it).
 * The root logger's own lines (start-up, shutdown) are not captured: only request loggers carry a capture.
 *
 * `sampling`: whether the sample may leave requests out (PROFILER_SAMPLE under 1). A request left out
 * is captured from warn only, so its logger needs no level below the console's and warn: the root
 * logger is set there, and a drawn request's logger is given the capture's level (pino then
 * rebuilds that child's methods, which only the drawn requests pay). A request left out then pays
 * nothing for the lines nobody wants (Fastify's "incoming request" and "request completed" at info
 * are pino's no-op), where the hook below would be called for each and drop it.
 */
function logCapture ({ consoleLevel, captureLevel, sampling }: ProbeSettings): ProbeServerOptions {
  const toConsole = levelValue(consoleLevel)
  const toCapture = levelValue(captureLevel)
  // What a request the sample leaves out captures: its warnings and errors (at most).
  const leftOutFrom = Math.max(toCapture, WARN)
  const drawnLevel = verbose(consoleLevel, captureLevel)
  const leftOutLevel = verbose(consoleLevel, toCapture === leftOutFrom ? captureLevel : 'warn')
  const rootLevel = sampling ? leftOutLevel : drawnLevel
  // Given to a drawn request's logger when the root's level is not verbose enough for its capture.
  const drawnOptions = levelValue(drawnLevel) < levelValue(rootLevel) ? { level: drawnLevel } : null
  return {
    loggerLevel: rootLevel,
    // Only when the console leaves Fastify's info lines out: it prints them through pino otherwise.
    ...(toConsole > INFO ? { logController: capturingLogController() } : {}),
    loggerHooks: {
      logMethod (args, method, level) {
        const logs = (this as CapturingLogger)[REQUEST_LOGS]
        if (logs !== undefined && level >= logs.fromLevel) captureLine(logs, args, level)
        if (level >= toConsole) method.apply(this, args)
      }
    },
    // The draw is made here, the first thing of a request's own, so that a request the sample leaves
    // out never pays for capturing its lines below warn (Fastify's "incoming request" among them).
    childLoggerFactory (logger, bindings, options, raw) {
      const drawn = this.profilerDraw?.(raw) ?? null
      // A route's own log level (Fastify passes it) is kept as it is, drawn or not.
      const child = drawn !== false && drawnOptions !== null && options.level === undefined
        ? logger.child(bindings, { ...options, ...drawnOptions })
        : logger.child(bindings, options)
      const fromLevel = drawn === false ? leftOutFrom : toCapture
      ;(child as CapturingLogger)[REQUEST_LOGS] = { drawn, fromLevel, lines: [], bytes: 0, omitted: 0, warnings: 0, errors: 0 }
      return child
    }
  }
}

export const logsProbe: PanelProbe<RequestLogs> = {
  serverOptions: logCapture,
  take (request) {
    return requestLogs(request.log)
  },
  // Counted as the lines are kept (bounded by MAX_LOG_LINES and MAX_LOG_BYTES).
  bytes (taken) {
    return taken.bytes
  }
}
