// What the service says about itself in its log: the profiler's status at start, and request
// lines whose URL is redacted like the profiles are.
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { withoutPassword } from '../lib/postgres/url.js'
import { REDACTED, Redactor } from '../lib/redact.js'

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

/** Request log lines carry the URL with its secrets redacted, like the profiles. */
export function logSerializers (config: Config) {
  const redactor = new Redactor({ fields: config.profilerRedactFields })
  const secret = config.profilerSecret
  const redactUrl = (url: string): string => {
    const redacted = redactor.url(url)
    return secret === null ? redacted : redacted.replaceAll(secret, REDACTED).replaceAll(encodeURIComponent(secret), REDACTED)
  }
  return {
    req: (request: FastifyRequest) => ({
      method: request.method,
      url: redactUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort
    })
  }
}
