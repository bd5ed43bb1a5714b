import { Type, type Static } from 'typebox'

export const EnvSchema = Type.Object({
  /** The service's version (package.json). */
  version: Type.String(),
  /** The commit checked out where the service runs from (read from .git once per process); null: not run from a git checkout. */
  commit: Type.Union([Type.String(), Type.Null()]),
  /** Node.js (process.version) and Fastify versions. */
  node: Type.String(),
  fastify: Type.String(),
  /** PROFILER_DEPLOYMENT: the name recorded with every profile. */
  deployment: Type.String(),
  /** NODE_ENV as the configuration resolved it; null when the profiler was given no configuration. */
  nodeEnv: Type.Union([Type.String(), Type.Null()]),
  /** When the process started, ISO-8601 UTC. */
  startedAt: Type.String(),
  /** The effective configuration (config.ts's resolved values) by name, sorted: secrets and URL passwords redacted. */
  configuration: Type.Record(Type.String(), Type.Unknown())
}, { additionalProperties: false })
export type EnvData = Static<typeof EnvSchema>
