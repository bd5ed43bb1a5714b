import { readFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import envSchema from 'env-schema'
import { Type, type Static } from 'typebox'
import { packageRoot } from './paths.js'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], { default: 'development' }),
  DATABASE_PATH: Type.String({ minLength: 1, default: 'var/app.sqlite' }),
  PROFILER_DATABASE_PATH: Type.String({ minLength: 1, default: 'var/profiler.sqlite' }),
  PROFILER: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  TRUST_PROXY: Type.String({
    pattern: '^(on|off|[0-9]+|[0-9A-Fa-f.:/]+(,[0-9A-Fa-f.:/]+)*)$',
    default: 'off',
    description: 'must be on, off, a hop count, or a comma-separated list of proxy addresses'
  }),
  LOG_LEVEL: Type.Union(LOG_LEVELS.map(level => Type.Literal(level)), { default: 'info' })
})

type Env = Static<typeof EnvSchema>

export interface Config {
  port: number
  host: string
  nodeEnv: Env['NODE_ENV']
  production: boolean
  databasePath: string
  profilerDatabasePath: string
  profiler: boolean
  /** false, true, a hop count, or a list of trusted proxy addresses/CIDRs (Fastify's trustProxy). */
  trustProxy: boolean | number | string[]
  logLevel: Env['LOG_LEVEL']
  version: string
}

/** Thrown for an invalid environment; `message` is one line per bad variable. */
export class ConfigError extends Error {}

interface AjvError { instancePath: string, keyword: string, message?: string, params: Record<string, unknown> }

function describe (error: AjvError, env: Record<string, string | undefined>): string {
  const name = error.instancePath.replace(/^\//, '')
  const got = env[name] === undefined ? '' : ` (got "${env[name]}")`
  const schema = EnvSchema.properties[name as keyof Env] as { anyOf?: Array<{ const: string }>, description?: string }
  let rule = error.message ?? 'is invalid'
  if (error.keyword === 'anyOf' || error.keyword === 'const') {
    rule = `must be one of ${(schema.anyOf ?? []).map(option => option.const).join(', ')}`
  } else if (error.keyword === 'pattern' && schema.description !== undefined) {
    rule = schema.description
  }
  return `${name} ${rule}${got}`
}

function parseTrustProxy (value: string): Config['trustProxy'] {
  if (value === 'off') return false
  if (value === 'on') return true
  if (/^[0-9]+$/.test(value)) return Number(value)
  return value.split(',')
}

function readVersion (): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

function resolvePath (path: string): string {
  return path === ':memory:' || isAbsolute(path) ? path : join(process.cwd(), path)
}

/** Reads and validates the environment; throws ConfigError naming each bad variable. */
export function loadConfig (env: Record<string, string | undefined> = process.env): Config {
  let parsed: Env
  try {
    parsed = envSchema<Env>({ schema: EnvSchema, data: env, env: false, dotenv: false })
  } catch (err) {
    const errors = (err as { errors?: AjvError[] }).errors ?? []
    // A union failure is reported once per branch plus once for the union: keep one line per variable.
    const byVariable = new Map<string, AjvError>()
    for (const error of errors) {
      const name = error.instancePath
      const previous = byVariable.get(name)
      if (previous === undefined || error.keyword === 'anyOf') byVariable.set(name, error)
    }
    const lines = [...byVariable.values()].map(error => describe(error, env))
    throw new ConfigError(`Invalid environment: ${lines.join('; ')}`)
  }
  const production = parsed.NODE_ENV === 'production'
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    nodeEnv: parsed.NODE_ENV,
    production,
    databasePath: resolvePath(parsed.DATABASE_PATH),
    profilerDatabasePath: resolvePath(parsed.PROFILER_DATABASE_PATH),
    profiler: parsed.PROFILER === undefined ? !production : parsed.PROFILER === 'on',
    trustProxy: parseTrustProxy(parsed.TRUST_PROXY),
    logLevel: parsed.LOG_LEVEL,
    version: readVersion()
  }
}
