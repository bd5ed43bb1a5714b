import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { Type, type Static, type TObject, type TSchema } from 'typebox'
import { Check, Errors } from 'typebox/schema'
import { packageRoot } from './paths.js'
import { traceLink } from './lib/trace-context.js'
import { AlertRulesError, loadAlertRules, type AlertRules } from './lib/alerts/rules-file.js'
import { OtlpEnvironmentError, otlpSettingsOf, type OtlpSettings } from './lib/otlp-environment.js'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
/** A comma-separated list of names (header or field names), possibly empty. */
const NAME_LIST = '^\\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+\\s*(,\\s*[!#$%&\'*+.^_`|~0-9A-Za-z-]+\\s*)*)?$'
const NAME_LIST_RULE = 'must be a comma-separated list of names'
const POSTGRES_URL = '^postgres(ql)?://\\S+$'
const POSTGRES_URL_RULE = 'must be a PostgreSQL URL: postgres://user:password@host:port/database'
/** A duration (`2d`) and a size (`256MiB`): checked by the schema, read by parseDuration and parseSize. */
const DURATION = '^([0-9]+)(ms|s|m|h|d)$'
const SIZE = '^([0-9]+)(B|KiB|MiB|GiB)?$'
const DURATION_RULE = 'must be a duration such as 500ms, 90s, 30m, 12h or 2d'

/** The variables that name the profile store, how long it keeps statistics, and the tracing UI's link: all that the profiler's command line reads. */
const STORE_VARIABLES = {
  PROFILER_DATABASE_PATH: Type.String({ minLength: 1, default: 'var/profiler.sqlite' }),
  PROFILER_DATABASE_URL: Type.Optional(Type.String({ pattern: POSTGRES_URL, description: POSTGRES_URL_RULE })),
  PROFILER_STATS_MAX_AGE: Type.String({ pattern: DURATION, default: '30d', description: DURATION_RULE }),
  // Issue 39: a profile's trace id links to the user's tracing UI (Jaeger, Tempo, Honeycomb...).
  PROFILER_TRACE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]*\\{traceId\\}[^\\s]*$', description: 'must be an http(s) URL holding {traceId}, such as http://localhost:16686/trace/{traceId}' }))
}
const StoreEnvSchema = Type.Object(STORE_VARIABLES)

const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], { default: 'development' }),
  DATABASE_PATH: Type.String({ minLength: 1, default: 'var/app.sqlite' }),
  PROFILER_DATABASE_PATH: STORE_VARIABLES.PROFILER_DATABASE_PATH,
  PROFILER: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  API_REFERENCE: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  TRUST_PROXY: Type.String({
    pattern: '^(on|off|[0-9]+|[0-9A-Fa-f.:/]+(,[0-9A-Fa-f.:/]+)*)$',
    default: 'off',
    description: 'must be on, off, a hop count, or a comma-separated list of proxy addresses'
  }),
  LOG_LEVEL: Type.Union(LOG_LEVELS.map(level => Type.Literal(level)), { default: 'info' }),
  // What the logs panel keeps of each request's log lines, whatever LOG_LEVEL sends to the console.
  PROFILER_LOG_LEVEL: Type.Union(LOG_LEVELS.map(level => Type.Literal(level)), { default: 'info' }),
  PROFILER_MAX_PROFILES: Type.Integer({ minimum: 1, default: 100_000 }),
  PROFILER_SLOW_QUERY: Type.String({ pattern: DURATION, default: '10ms', description: DURATION_RULE }),
  PROFILER_MAX_AGE: Type.String({
    pattern: DURATION,
    default: '2d',
    description: DURATION_RULE
  }),
  PROFILER_STATS_MAX_AGE: STORE_VARIABLES.PROFILER_STATS_MAX_AGE,
  PROFILER_MAX_BYTES: Type.String({
    pattern: SIZE,
    default: '256MiB',
    description: 'must be a size in bytes, or with a unit: 512KiB, 256MiB, 2GiB'
  }),
  PROFILER_MAX_QUEUE_BYTES: Type.String({
    pattern: SIZE,
    default: '64MiB',
    description: 'must be a size in bytes, or with a unit: 512KiB, 64MiB, 1GiB'
  }),
  // Sampling (issue #24): the share of requests kept as profiles; errors, slow and forced requests always are.
  PROFILER_SAMPLE: Type.Number({ minimum: 0, maximum: 1, default: 1 }),
  PROFILER_KEEP_SLOWER_THAN: Type.String({ pattern: DURATION, default: '1s', description: DURATION_RULE }),
  PROFILER_SECRET: Type.Optional(Type.String({ minLength: 16, description: 'must be at least 16 characters' })),
  PROFILER_REDACT_HEADERS: Type.String({ pattern: NAME_LIST, default: '', description: NAME_LIST_RULE }),
  PROFILER_REDACT_FIELDS: Type.String({ pattern: NAME_LIST, default: '', description: NAME_LIST_RULE }),
  // Several deployments, one store: PostgreSQL for the profile store and the advisors (issue #12).
  PROFILER_DATABASE_URL: STORE_VARIABLES.PROFILER_DATABASE_URL,
  DATABASE_URL: Type.Optional(Type.String({ pattern: POSTGRES_URL, description: POSTGRES_URL_RULE })),
  PROFILER_DEPLOYMENT: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$', description: 'must be a name of up to 64 letters, digits, dots, dashes, underscores or colons' })),
  PROFILER_TRACE_URL: STORE_VARIABLES.PROFILER_TRACE_URL,
  PROFILER_PARTITION: Type.String({ pattern: '^[1-9][0-9]*(s|m|h|d)$', default: '1h', description: 'must be a duration such as 15m, 1h or 1d' }),
  // Where the profiler's writer runs: its own thread, or the request thread (tests, one-thread CPU profiles).
  PROFILER_WRITER: Type.Union([Type.Literal('thread'), Type.Literal('inline')], { default: 'thread' }),
  // Timeouts of the HTTP server (docs/security.md, "Timeouts and load shedding"): a client that sends slowly is cut off.
  REQUEST_TIMEOUT: Type.String({ pattern: DURATION, default: '30s', description: DURATION_RULE }),
  HEADERS_TIMEOUT: Type.String({ pattern: DURATION, default: '10s', description: DURATION_RULE }),
  KEEP_ALIVE_TIMEOUT: Type.String({ pattern: DURATION, default: '5s', description: DURATION_RULE }),
  CONNECTION_TIMEOUT: Type.String({ pattern: DURATION, default: '60s', description: DURATION_RULE }),
  /** Past this event-loop delay new requests are shed (503); 0 turns shedding off. */
  MAX_EVENT_LOOP_DELAY: Type.String({ pattern: DURATION, default: '1s', description: DURATION_RULE }),
  TRUSTED_HOSTS: Type.String({ default: '' }),
  // Alert rules read from the route statistics (issue 40): a JSON file, validated at start.
  PROFILER_ALERTS: Type.Optional(Type.String({ minLength: 1 })),
  // Every kept profile sent out as a trace over OTLP/HTTP (issue 39): a collector's base URL, or
  // `otel` for the OTEL_EXPORTER_OTLP_* variables; lib/otlp-environment.ts reads the rest.
  PROFILER_OTLP_ENDPOINT: Type.Optional(Type.String()),
  PROFILER_OTLP_PROTOCOL: Type.Optional(Type.String())
})

/** Variables whose value is never repeated in an error message. */
const SECRET_VARIABLES = new Set(['PROFILER_SECRET', 'PROFILER_DATABASE_URL', 'DATABASE_URL'])

type Env = Static<typeof EnvSchema>

export interface Config {
  port: number
  host: string
  nodeEnv: Env['NODE_ENV']
  production: boolean
  databasePath: string
  profilerDatabasePath: string
  profiler: boolean
  /** Whether the API's reference page (Swagger UI at /docs/) is served; /openapi.json always is. */
  apiReference: boolean
  /** false, true, a hop count, or a list of trusted proxy addresses/CIDRs (Fastify's trustProxy). */
  trustProxy: boolean | number | string[]
  logLevel: Env['LOG_LEVEL']
  /** The lowest level of a request's log lines the logs panel keeps (the console still filters at logLevel). */
  profilerLogLevel: Env['PROFILER_LOG_LEVEL']
  version: string
  /** Retention bounds of the profile store: whichever is hit first, the oldest profiles go. */
  profilerMaxProfiles: number
  profilerMaxAgeMs: number
  /** The route statistics' own bound: rollup rows older than this are deleted (pruning profiles leaves them). */
  profilerStatsMaxAgeMs: number
  /** The database panel marks statements slower than this as slow. */
  profilerSlowQueryMs: number
  profilerMaxBytes: number
  /** Profiles waiting for the writer (and the batch it is writing) at most, in estimated bytes; past that they are dropped and counted. */
  profilerMaxQueueBytes: number
  /** The share of requests kept as profiles (0 to 1); the others feed the route statistics only. */
  profilerSample: number
  /** Requests slower than this are kept as profiles whatever the sample. */
  profilerKeepSlowerThanMs: number
  /** The password of the profiler's pages (HTTP Basic); null: the pages are open. */
  profilerSecret: string | null
  /** Header and field names redacted on top of the built-in ones (lower case). */
  profilerRedactHeaders: string[]
  profilerRedactFields: string[]
  /** The profile store on PostgreSQL (else the SQLite file profilerDatabasePath). Holds a password: never log it as is. */
  profilerDatabaseUrl: string | null
  /** The advisors on PostgreSQL (else the SQLite file databasePath). Holds a password: never log it as is. */
  databaseUrl: string | null
  /** This deployment's name, recorded with every profile (default: the host name). */
  profilerDeployment: string
  /** PostgreSQL store: the width of a time partition (retention drops whole partitions). */
  profilerPartitionMs: number
  /** A link to the tracing UI with `{traceId}` where a profile's trace id goes; null: trace ids are shown without a link. */
  profilerTraceUrl: string | null
  /** Where the profiler's writer runs: 'thread' (its own, the default) or 'inline' (the request thread). */
  profilerWriter: Env['PROFILER_WRITER']
  /** Server timeouts in milliseconds (0: none): whole request, headers, idle keep-alive, idle socket. */
  requestTimeoutMs: number
  headersTimeoutMs: number
  keepAliveTimeoutMs: number
  connectionTimeoutMs: number
  /** Event-loop delay past which requests are shed with a 503; 0: never. */
  maxEventLoopDelayMs: number
  /** Host patterns (anchored, case-insensitive) a request's Host must match; empty: any valid host. */
  trustedHosts: RegExp[]
  /** The alert rules file (PROFILER_ALERTS), resolved; null: no alerts. */
  profilerAlertsPath: string | null
  /** Its rules, validated. Holds the webhooks' URLs and secrets: never log or show it. */
  profilerAlerts: AlertRules | null
  /** Where kept profiles are sent as traces (PROFILER_OTLP_ENDPOINT); null: not sent. Holds the OTLP headers (credentials): never log or show it. */
  profilerOtlp: OtlpSettings | null
}

/** Thrown for an invalid environment; `message` is one line per bad variable. */
export class ConfigError extends Error {}

/** TypeBox's validation errors are shaped as Ajv's: the keyword failed, the variable's path, the limit and a message. */
interface SchemaError { instancePath: string, keyword: string, message?: string, params: Record<string, unknown> }

function describe (error: SchemaError, env: Record<string, string | undefined>): string {
  const name = error.instancePath.replace(/^\//, '')
  const got = env[name] === undefined || SECRET_VARIABLES.has(name) ? '' : ` (got "${env[name]}")`
  const schema = EnvSchema.properties[name as keyof Env] as { anyOf?: Array<{ const: string }>, description?: string }
  let rule = error.message ?? 'is invalid'
  if (error.keyword === 'anyOf' || error.keyword === 'const') {
    rule = `must be one of ${(schema.anyOf ?? []).map(option => option.const).join(', ')}`
  } else if ((error.keyword === 'pattern' || error.keyword === 'minLength') && schema.description !== undefined) {
    rule = schema.description
  } else if (error.keyword === 'minLength') {
    rule = `must NOT have fewer than ${String(error.params.limit)} characters`
  }
  return `${name} ${rule}${got}`
}

function parseTrustProxy (value: string): Config['trustProxy'] {
  if (value === 'off') return false
  if (value === 'on') return true
  if (/^[0-9]+$/.test(value)) return Number(value)
  return value.split(',')
}

const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const SIZE_BYTES: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }

/** `2d` -> milliseconds (the schema has checked the form). */
function parseDuration (value: string): number {
  const [, amount = '0', unit = 'ms'] = new RegExp(DURATION).exec(value) ?? []
  return Number(amount) * (DURATION_MS[unit] ?? 1)
}

/** `256MiB` -> bytes (the schema has checked the form). */
function parseSize (value: string): number {
  const [, amount = '0', unit = 'B'] = new RegExp(SIZE).exec(value) ?? []
  return Number(amount) * (SIZE_BYTES[unit] ?? 1)
}

function parseNameList (value: string): string[] {
  return value.split(',').map(name => name.trim().toLowerCase()).filter(name => name !== '')
}

/**
 * TRUSTED_HOSTS: comma-separated regular expressions, as Symfony's framework.trusted_hosts, matched
 * case-insensitively against the host without its port. Unlike Symfony (Request::setTrustedHosts
 * wraps each pattern as `{pattern}i`, unanchored), each is anchored (`^(?:pattern)$`): `example\.com`
 * does not also trust `example.com.evil.test`.
 */
function parseTrustedHosts (value: string): RegExp[] {
  const patterns = value.split(',').map(pattern => pattern.trim()).filter(pattern => pattern !== '')
  return patterns.map(pattern => {
    try {
      return new RegExp(`^(?:${pattern})$`, 'i')
    } catch (err) {
      throw new ConfigError(`Invalid environment: TRUSTED_HOSTS has an invalid regular expression "${pattern}": ${(err as Error).message}`)
    }
  })
}

function readVersion (): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

function resolvePath (path: string): string {
  return path === ':memory:' || isAbsolute(path) ? path : join(process.cwd(), path)
}

/**
 * A variable's text as the number its schema asks for: a decimal or scientific number, possibly
 * padded with spaces. Anything else (an empty value, `true`, `Infinity`) stays text, and so fails
 * the schema's type: TypeBox's own conversion would read "" as 0 and "true" as 1.
 */
function asNumber (text: string): number | string {
  const value = Number(text)
  return text.trim() !== '' && Number.isFinite(value) ? value : text
}

/** The schema's variables taken from `env` (nothing else), numbers read as numbers, absent ones given their default. */
function withDefaults (schema: TObject, env: Record<string, string | undefined>): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema & { type?: string, default?: unknown }>)) {
    const text = env[name]
    if (text !== undefined) data[name] = property.type === 'number' || property.type === 'integer' ? asNumber(text) : text
    else if (property.default !== undefined) data[name] = property.default
  }
  return data
}

/**
 * `env` validated against `schema` (defaults filled in); a ConfigError names each bad variable.
 * TypeBox's JSON Schema checker reads the schema as it is, without building a validator: every
 * process (each test's server, each run of the command line) reads its environment once, and
 * compiling the schema with Ajv (env-schema, before) took ~0.1 s of CPU a start.
 */
function validated<T> (schema: typeof EnvSchema | typeof StoreEnvSchema, env: Record<string, string | undefined>): T {
  const data = withDefaults(schema, env)
  if (Check(schema, data)) return data as T
  // A union failure is reported once per branch plus once for the union: keep one line per variable.
  const byVariable = new Map<string, SchemaError>()
  const [, errors] = Errors(schema, data)
  for (const error of errors as SchemaError[]) {
    const name = error.instancePath
    const previous = byVariable.get(name)
    if (previous === undefined || error.keyword === 'anyOf') byVariable.set(name, error)
  }
  const lines = [...byVariable.values()].map(error => describe(error, env))
  throw new ConfigError(`Invalid environment: ${lines.join('; ')}`)
}

/** Where the profile store is: a file that the writer thread and the pages can both open, or PostgreSQL, not both. */
/** PROFILER_TRACE_URL, checked once its pattern holds: still a URL with a trace id in it. */
function traceUrlOf (template: string | undefined): string | null {
  if (template === undefined) return null
  if (!URL.canParse(traceLink(template, '0'.repeat(32)))) throw new ConfigError('Invalid environment: PROFILER_TRACE_URL is not a URL once {traceId} is filled in')
  return template
}

function checkStore (path: string, env: Record<string, string | undefined>): void {
  // The reader and the writer thread would each open their own, different in-memory database.
  if (path === ':memory:') {
    throw new ConfigError('Invalid environment: PROFILER_DATABASE_PATH cannot be ":memory:" (the writer thread and the pages would open two different databases): give a file path')
  }
  eitherUrlOrPath(env, 'PROFILER_DATABASE_URL', 'PROFILER_DATABASE_PATH')
}

function eitherUrlOrPath (env: Record<string, string | undefined>, url: string, path: string): void {
  if (env[url] !== undefined && env[path] !== undefined) {
    throw new ConfigError(`Invalid environment: set either ${url} (PostgreSQL) or ${path} (SQLite), not both`)
  }
}

/** What the profiler's command line needs: where the store is, and the version its exports name. */
export type StoreConfig = Pick<Config, 'profilerDatabasePath' | 'profilerDatabaseUrl' | 'profilerStatsMaxAgeMs' | 'profilerTraceUrl' | 'version'>

/**
 * Reads and validates only the variables that name the profile store: the command line reads
 * nothing else, so a setting of the server (a timeout, PROFILER=on in production without its
 * secret) does not stop it.
 */
export function loadStoreConfig (env: Record<string, string | undefined> = process.env): StoreConfig {
  const parsed = validated<Static<typeof StoreEnvSchema>>(StoreEnvSchema, env)
  checkStore(parsed.PROFILER_DATABASE_PATH, env)
  return {
    profilerDatabasePath: resolvePath(parsed.PROFILER_DATABASE_PATH),
    profilerDatabaseUrl: parsed.PROFILER_DATABASE_URL ?? null,
    profilerStatsMaxAgeMs: parseDuration(parsed.PROFILER_STATS_MAX_AGE),
    profilerTraceUrl: traceUrlOf(parsed.PROFILER_TRACE_URL),
    version: readVersion()
  }
}

/** Reads and validates the environment; throws ConfigError naming each bad variable. */
export function loadConfig (env: Record<string, string | undefined> = process.env): Config {
  const parsed = validated<Env>(EnvSchema, env)
  checkStore(parsed.PROFILER_DATABASE_PATH, env)
  const requestTimeoutMs = parseDuration(parsed.REQUEST_TIMEOUT)
  const headersTimeoutMs = parseDuration(parsed.HEADERS_TIMEOUT)
  // Node refuses a headers timeout longer than the request timeout.
  if (requestTimeoutMs > 0 && (headersTimeoutMs === 0 || headersTimeoutMs > requestTimeoutMs)) {
    throw new ConfigError(`Invalid environment: HEADERS_TIMEOUT (${parsed.HEADERS_TIMEOUT}) must not be longer than REQUEST_TIMEOUT (${parsed.REQUEST_TIMEOUT})`)
  }
  const trustedHosts = parseTrustedHosts(parsed.TRUSTED_HOSTS)
  const production = parsed.NODE_ENV === 'production'
  const profiler = parsed.PROFILER === undefined ? !production : parsed.PROFILER === 'on'
  // An exposed profiler leaks every request it recorded: in production it needs a password.
  if (production && profiler && parsed.PROFILER_SECRET === undefined) {
    throw new ConfigError('Invalid environment: PROFILER_SECRET must be set (at least 16 characters) when PROFILER=on in production')
  }
  eitherUrlOrPath(env, 'DATABASE_URL', 'DATABASE_PATH')
  const profilerAlertsPath = parsed.PROFILER_ALERTS === undefined ? null : resolvePath(parsed.PROFILER_ALERTS)
  const version = readVersion()
  const profilerDeployment = parsed.PROFILER_DEPLOYMENT ?? hostname()
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    nodeEnv: parsed.NODE_ENV,
    production,
    databasePath: resolvePath(parsed.DATABASE_PATH),
    profilerDatabasePath: resolvePath(parsed.PROFILER_DATABASE_PATH),
    profiler,
    apiReference: parsed.API_REFERENCE === undefined ? !production : parsed.API_REFERENCE === 'on',
    trustProxy: parseTrustProxy(parsed.TRUST_PROXY),
    logLevel: parsed.LOG_LEVEL,
    profilerLogLevel: parsed.PROFILER_LOG_LEVEL,
    version,
    profilerMaxProfiles: parsed.PROFILER_MAX_PROFILES,
    profilerMaxAgeMs: parseDuration(parsed.PROFILER_MAX_AGE),
    profilerSlowQueryMs: parseDuration(parsed.PROFILER_SLOW_QUERY),
    profilerMaxBytes: parseSize(parsed.PROFILER_MAX_BYTES),
    profilerStatsMaxAgeMs: parseDuration(parsed.PROFILER_STATS_MAX_AGE),
    profilerMaxQueueBytes: parseSize(parsed.PROFILER_MAX_QUEUE_BYTES),
    profilerSample: parsed.PROFILER_SAMPLE,
    profilerKeepSlowerThanMs: parseDuration(parsed.PROFILER_KEEP_SLOWER_THAN),
    profilerSecret: parsed.PROFILER_SECRET ?? null,
    profilerRedactHeaders: parseNameList(parsed.PROFILER_REDACT_HEADERS),
    profilerRedactFields: parseNameList(parsed.PROFILER_REDACT_FIELDS),
    profilerDatabaseUrl: parsed.PROFILER_DATABASE_URL ?? null,
    databaseUrl: parsed.DATABASE_URL ?? null,
    profilerDeployment,
    profilerPartitionMs: parseDuration(parsed.PROFILER_PARTITION),
    profilerTraceUrl: traceUrlOf(parsed.PROFILER_TRACE_URL),
    profilerWriter: parsed.PROFILER_WRITER,
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: parseDuration(parsed.KEEP_ALIVE_TIMEOUT),
    connectionTimeoutMs: parseDuration(parsed.CONNECTION_TIMEOUT),
    maxEventLoopDelayMs: parseDuration(parsed.MAX_EVENT_LOOP_DELAY),
    trustedHosts,
    profilerAlertsPath,
    profilerAlerts: profilerAlertsPath === null ? null : alertRules(profilerAlertsPath),
    profilerOtlp: otlpSettings(env, { name: SERVICE_NAME, version, environment: parsed.NODE_ENV, deployment: profilerDeployment })
  }
}

/** The resource's service.name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise. */
const SERVICE_NAME = 'profiled-api'

function otlpSettings (env: Record<string, string | undefined>, service: Parameters<typeof otlpSettingsOf>[1]): OtlpSettings | null {
  try {
    return otlpSettingsOf(env, service)
  } catch (err) {
    if (err instanceof OtlpEnvironmentError) throw new ConfigError(`Invalid environment: ${err.message}`)
    throw err
  }
}

/** The rules file, validated: a bad one stops the start with one line naming the file, the rule and the field. */
function alertRules (path: string): AlertRules {
  try {
    return loadAlertRules(path)
  } catch (err) {
    if (err instanceof AlertRulesError) throw new ConfigError(`Invalid environment: PROFILER_ALERTS (${path}) ${err.message}`)
    throw err
  }
}
