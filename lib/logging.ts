// What the service says about itself in its log: the profiler's status at start, and lines
// redacted as the profiles are. One Redactor (lib/redact.ts: secret names, value-shaped secrets,
// a URL's password, PROFILER_SECRET's value in any spelling) is applied to everything a console
// line carries: the request's URL, host, method and address, the error's message, stack and
// fields, every other field of a call, the message itself (which may quote a target or a Host
// header) and its format arguments; each value as JSON writes it (a Date, a URL, a Buffer, a
// toJSON method: Redactor.fields).
import type { FastifyReply, FastifyRequest } from 'fastify'
import { stdSerializers, type LogFn, type Logger } from 'pino'
import type { Config } from '../config.js'
import { withoutPassword } from './postgres/url.js'
import { redactionRules, Redactor } from './redact.js'

/** The start-up line that says whether the profiler records, where, and who may read it. */
export function profilerStatus (config: Config): string {
  if (!config.profiler) {
    return `Profiler: off${config.production ? ' (production: PROFILER=on with PROFILER_SECRET enables it)' : ' (PROFILER=off)'}`
  }
  const access = config.profilerSecret === null
    ? 'pages NOT protected: anyone who reaches this port can read the profiles (set PROFILER_SECRET)'
    : 'pages protected by HTTP Basic authentication (PROFILER_SECRET)'
  const store = config.profilerDatabaseUrl === null ? config.profilerDatabasePath : `PostgreSQL ${withoutPassword(config.profilerDatabaseUrl)}`
  return `Profiler: on, store ${store}, ${access}; deployment ${config.profilerDeployment}`
}

/** What a log line carries in place of a value its serializer could not turn into JSON. */
export const UNSERIALIZABLE = '[unserializable]'

// Fastify types each serializer's result; ours returns either its own shape or the marker.
type Serializer = (value: any) => any

/**
 * A serializer that cannot throw: an exception escaping a serializer escapes the log call, and
 * one in Fastify's request handling ended the process (a 12 KB URL overflowed the redactor's stack).
 */
function neverThrows (serializer: Serializer): Serializer {
  return value => {
    try {
      return serializer(value)
    } catch (err) {
      return { [UNSERIALIZABLE]: err instanceof Error ? err.name : typeof err }
    }
  }
}

type Rules = Pick<Config, 'profilerRedactHeaders' | 'profilerRedactFields' | 'profilerSecret'>

/** The fields that have a serializer below: the serializer redacts them (an Error is no plain object). */
const SERIALIZED = new Set(['req', 'res', 'err'])

/**
 * Request log lines carry the URL, the Host header and the client's address (which X-Forwarded-For
 * gives behind a trusted proxy) redacted like the profiles; an error its message, stack and fields
 * (Node's URL errors carry the text they refused as `input`). No serializer throws.
 */
export function logSerializers (config: Rules): Record<'req' | 'res' | 'err', Serializer> {
  const redactor = new Redactor(redactionRules(config))
  // A value that is no string (a request-like object someone logged: a URL object, a Buffer) is redacted as any field.
  const text = (value: unknown): unknown => typeof value === 'string' ? redactor.text(value) : redactor.fields(value)
  return {
    req: neverThrows((request: FastifyRequest) => ({
      method: text(request.method),
      url: typeof request.url === 'string' ? redactor.url(request.url) : redactor.fields(request.url),
      host: text(request.host),
      remoteAddress: text(request.ip),
      remotePort: request.socket?.remotePort
    })),
    res: neverThrows((reply: FastifyReply) => ({ statusCode: reply.statusCode })),
    err: neverThrows(err => redactor.fields(stdSerializers.err(err)))
  }
}

/** pino's `hooks.logMethod`. */
export type LogMethodHook = (this: Logger, args: Parameters<LogFn>, method: LogFn, level: number) => void

/**
 * The console's logMethod hook: a line's message and format arguments, and the fields of the call
 * but those a serializer redacts, go out redacted. `inner` (the logs panel's capture) sees the call
 * as made, and prints through the redacting method: the capture is redacted by the writer thread,
 * and a line only captured (below the console's level) pays nothing here.
 */
export function redactingLogMethod (config: Rules, inner?: LogMethodHook): LogMethodHook {
  const redactor = new Redactor(redactionRules(config))
  const redactArgument = (arg: unknown, first: boolean): unknown => {
    if (typeof arg === 'string') return redactor.text(arg)
    if (arg === null || typeof arg !== 'object') return redactor.fields(arg)
    // The first argument's error goes through the err serializer; a format argument's is written as it would be.
    if (arg instanceof Error) return first ? arg : redactor.fields(stdSerializers.err(arg))
    // A format argument (%s, %o, %j) is written as JSON writes it: redacted as a field.
    if (!first) return redactor.fields(arg)
    const fields = arg as Record<string, unknown>
    // Every key pino writes: its own and inherited enumerable ones (a URL's href, password... are
    // inherited getters), judged by name too (a `password` field) as any object's.
    const plain: Record<string, unknown> = {}
    const serialized: Record<string, unknown> = {}
    for (const name in fields) {
      if (SERIALIZED.has(name)) serialized[name] = fields[name]
      else plain[name] = fields[name]
    }
    return { ...redactor.fields(plain) as Record<string, unknown>, ...serialized }
  }
  return function (args, method, level) {
    const logger = this
    const redacted = function (...given: unknown[]): void {
      let out: unknown[]
      try {
        out = given.map((arg, i) => redactArgument(arg, i === 0))
      } catch {
        out = [UNSERIALIZABLE] // a log call never throws into its caller (as the serializers above)
      }
      (method as (...values: unknown[]) => void).apply(logger, out)
    } as LogFn
    if (inner === undefined) redacted.apply(logger, args)
    else inner.call(logger, args, redacted, level)
  }
}
