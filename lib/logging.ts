// What the service says about itself in its log: the profiler's status at start, and request
// lines whose URL is redacted like the profiles are.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { stdSerializers } from 'pino'
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

/** Request log lines carry the URL with its secrets redacted, like the profiles; no serializer throws. */
export function logSerializers (config: Config): Record<'req' | 'res' | 'err', Serializer> {
  const redactor = new Redactor(redactionRules(config))
  return {
    req: neverThrows((request: FastifyRequest) => ({
      method: request.method,
      url: redactor.url(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort
    })),
    res: neverThrows((reply: FastifyReply) => ({ statusCode: reply.statusCode })),
    err: neverThrows(stdSerializers.err)
  }
}
