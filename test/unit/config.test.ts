// run-suite: shares a process
import t from 'tap'
import { hostname } from 'node:os'
import { ConfigError, loadConfig } from '../../config.js'
import { profilerStatus } from '../../lib/logging.js'

t.test('defaults', async t => {
  const config = loadConfig({})
  t.match(config, {
    port: 8000,
    host: '127.0.0.1',
    nodeEnv: 'development',
    production: false,
    profiler: true,
    profilerWriter: 'thread',
    trustProxy: false,
    logLevel: 'info'
  })
  t.match(config.databasePath, /var\/app\.sqlite$/)
  t.match(config.profilerDatabasePath, /var\/profiler\.sqlite$/)
})

t.test('the API reference page is on outside production, off in production unless API_REFERENCE=on', async t => {
  t.equal(loadConfig({}).apiReference, true)
  t.equal(loadConfig({ NODE_ENV: 'production' }).apiReference, false)
  t.equal(loadConfig({ NODE_ENV: 'production', API_REFERENCE: 'on' }).apiReference, true)
  t.equal(loadConfig({ API_REFERENCE: 'off' }).apiReference, false)
  t.throws(() => loadConfig({ API_REFERENCE: 'yes' }), { message: 'Invalid environment: API_REFERENCE must be one of on, off (got "yes")' })
})

t.test('the profiler is off in production unless PROFILER=on', async t => {
  t.equal(loadConfig({ NODE_ENV: 'production' }).profiler, false)
  t.equal(loadConfig({ NODE_ENV: 'production', PROFILER: 'on', PROFILER_SECRET: 'a-long-enough-secret' }).profiler, true)
  t.equal(loadConfig({ PROFILER: 'off' }).profiler, false)
})

t.test('TRUST_PROXY forms', async t => {
  t.equal(loadConfig({ TRUST_PROXY: 'on' }).trustProxy, true)
  t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
  t.same(loadConfig({ TRUST_PROXY: '10.0.0.1,192.168.0.0/16' }).trustProxy, ['10.0.0.1', '192.168.0.0/16'])
})

t.test('a bad value names the variable and what is allowed, in one line', async t => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^Invalid environment: PORT must be integer \(got "abc"\)$/],
    [{ PORT: '70000' }, /PORT must be <= 65535/],
    [{ NODE_ENV: 'prod' }, /NODE_ENV must be one of development, production, test \(got "prod"\)/],
    [{ PROFILER: 'yes' }, /PROFILER must be one of on, off/],
    [{ PROFILER_WRITER: 'worker' }, /PROFILER_WRITER must be one of thread, inline \(got "worker"\)/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY must be on, off, a hop count, or a comma-separated list/]
  ]
  for (const [env, message] of cases) {
    const error = t.throws(() => loadConfig(env)) as Error
    t.ok(error instanceof ConfigError)
    t.match(error.message, message)
    t.notMatch(error.message, /\n/)
  }
})

// A number is read as Ajv's coercion read it (env-schema, before): any text Number() reads, padded or not;
// an empty value, a boolean word or an infinity is no number (TypeBox's own conversion reads "" as 0).
t.test('numbers: what reads as one, and what does not', async t => {
  t.equal(loadConfig({ PORT: ' 8080 ' }).port, 8080)
  t.equal(loadConfig({ PORT: '1e3' }).port, 1000)
  t.equal(loadConfig({ PROFILER_SAMPLE: '.25' }).profilerSample, 0.25)
  t.equal(loadConfig({ PROFILER_SAMPLE: '0' }).profilerSample, 0)
  const cases: Array<[Record<string, string>, string]> = [
    [{ PROFILER_SAMPLE: '' }, 'PROFILER_SAMPLE must be number (got "")'],
    [{ PORT: '' }, 'PORT must be integer (got "")'],
    [{ PORT: '80.5' }, 'PORT must be integer (got "80.5")'],
    [{ PORT: 'true' }, 'PORT must be integer (got "true")'],
    [{ PROFILER_MAX_PROFILES: 'Infinity' }, 'PROFILER_MAX_PROFILES must be integer (got "Infinity")'],
    [{ PROFILER_SAMPLE: '2', PORT: 'x' }, 'PORT must be integer (got "x"); PROFILER_SAMPLE must be <= 1 (got "2")']
  ]
  for (const [env, message] of cases) t.throws(() => loadConfig(env), new ConfigError(`Invalid environment: ${message}`), JSON.stringify(env))
})

t.test('retention bounds: durations and sizes with units', async t => {
  const defaults = loadConfig({})
  t.equal(defaults.profilerMaxProfiles, 100_000)
  t.equal(defaults.profilerMaxAgeMs, 2 * 86_400_000)
  t.equal(defaults.profilerStatsMaxAgeMs, 30 * 86_400_000, 'the statistics outlive the profiles by default')
  t.equal(loadConfig({ PROFILER_STATS_MAX_AGE: '7d' }).profilerStatsMaxAgeMs, 7 * 86_400_000)
  t.throws(() => loadConfig({ PROFILER_STATS_MAX_AGE: '1w' }), /PROFILER_STATS_MAX_AGE must be a duration/)
  t.equal(defaults.profilerMaxBytes, 256 * 1024 * 1024)
  const custom = loadConfig({ PROFILER_MAX_PROFILES: '500', PROFILER_MAX_AGE: '90s', PROFILER_MAX_BYTES: '512KiB' })
  t.same([custom.profilerMaxProfiles, custom.profilerMaxAgeMs, custom.profilerMaxBytes], [500, 90_000, 512 * 1024])
  t.equal(loadConfig({ PROFILER_MAX_AGE: '12h', PROFILER_MAX_BYTES: '2GiB' }).profilerMaxBytes, 2 * 1024 ** 3)
  t.throws(() => loadConfig({ PROFILER_MAX_AGE: '2 days' }), /PROFILER_MAX_AGE must be a duration such as 500ms, 90s, 30m, 12h or 2d \(got "2 days"\)/)
  t.throws(() => loadConfig({ PROFILER_MAX_BYTES: '1GB' }), /PROFILER_MAX_BYTES must be a size in bytes, or with a unit: 512KiB, 256MiB, 2GiB/)
  t.throws(() => loadConfig({ PROFILER_MAX_PROFILES: '0' }), /PROFILER_MAX_PROFILES must be >= 1/)
})

t.test('the profiler queue\'s byte bound: 64 MiB by default, a size with a unit', async t => {
  t.equal(loadConfig({}).profilerMaxQueueBytes, 64 * 1024 * 1024)
  t.equal(loadConfig({ PROFILER_MAX_QUEUE_BYTES: '8MiB' }).profilerMaxQueueBytes, 8 * 1024 * 1024)
  t.throws(() => loadConfig({ PROFILER_MAX_QUEUE_BYTES: 'lots' }), /PROFILER_MAX_QUEUE_BYTES must be a size in bytes, or with a unit: 512KiB, 64MiB, 1GiB \(got "lots"\)/)
})

t.test('PROFILER=on in production requires PROFILER_SECRET of 16 characters or more, never echoed', async t => {
  t.throws(() => loadConfig({ NODE_ENV: 'production', PROFILER: 'on' }),
    { message: 'Invalid environment: PROFILER_SECRET must be set (at least 16 characters) when PROFILER=on in production' })
  const short = t.throws(() => loadConfig({ NODE_ENV: 'production', PROFILER: 'on', PROFILER_SECRET: 'tooshort-42' })) as Error
  t.equal(short.message, 'Invalid environment: PROFILER_SECRET must be at least 16 characters')
  t.throws(() => loadConfig({ PROFILER_SECRET: 'tooshort-42' }), /PROFILER_SECRET must be at least 16 characters/, 'in development too')
  t.equal(loadConfig({}).profilerSecret, null)
  t.equal(loadConfig({ PROFILER_SECRET: 'a-long-enough-secret' }).profilerSecret, 'a-long-enough-secret')
  t.equal(loadConfig({ NODE_ENV: 'production', PROFILER_SECRET: 'a-long-enough-secret' }).profiler, false, 'a secret alone does not turn it on')
})

t.test('PROFILER_REDACT_HEADERS and PROFILER_REDACT_FIELDS: comma-separated names', async t => {
  const config = loadConfig({ PROFILER_REDACT_HEADERS: 'X-Tenant-Key, x-signature', PROFILER_REDACT_FIELDS: 'iban,SSN' })
  t.same(config.profilerRedactHeaders, ['x-tenant-key', 'x-signature'])
  t.same(config.profilerRedactFields, ['iban', 'ssn'])
  t.same(loadConfig({}).profilerRedactHeaders, [])
  t.throws(() => loadConfig({ PROFILER_REDACT_HEADERS: 'a b,' }), /PROFILER_REDACT_HEADERS must be a comma-separated list of names \(got "a b,"\)/)
})

t.test('PostgreSQL stores and the deployment name', async t => {
  const url = 'postgres://profiler:s3cret-pw@db.example:5432/profiles'
  const config = loadConfig({ PROFILER_DATABASE_URL: url, DATABASE_URL: 'postgresql://app:pw@db/app', PROFILER_DEPLOYMENT: 'A' })
  t.equal(config.profilerDatabaseUrl, url)
  t.equal(config.databaseUrl, 'postgresql://app:pw@db/app')
  t.equal(config.profilerDeployment, 'A')
  t.equal(config.profilerPartitionMs, 3_600_000, 'hourly partitions by default')
  t.equal(loadConfig({ PROFILER_PARTITION: '15m' }).profilerPartitionMs, 900_000)
  t.match(String(t.throws(() => loadConfig({ PROFILER_PARTITION: '0s' }))), /PROFILER_PARTITION must be a duration/)
  t.equal(loadConfig({}).profilerDeployment, hostname(), 'the host name by default')
  t.equal(loadConfig({}).profilerDatabaseUrl, null, 'SQLite by default')

  t.throws(() => loadConfig({ PROFILER_DATABASE_URL: url, PROFILER_DATABASE_PATH: 'var/p.sqlite' }),
    new ConfigError('Invalid environment: set either PROFILER_DATABASE_URL (PostgreSQL) or PROFILER_DATABASE_PATH (SQLite), not both'))
  t.throws(() => loadConfig({ DATABASE_URL: url, DATABASE_PATH: 'var/a.sqlite' }), /set either DATABASE_URL \(PostgreSQL\) or DATABASE_PATH \(SQLite\), not both/)

  // A bad URL is named, but never repeated: it may hold a password.
  const bad = t.throws(() => loadConfig({ PROFILER_DATABASE_URL: 'mysql://u:hunter2@h/d' })) as Error
  t.match(bad.message, /PROFILER_DATABASE_URL must be a PostgreSQL URL/)
  t.notMatch(bad.message, /hunter2/)
  t.match(String(t.throws(() => loadConfig({ PROFILER_DEPLOYMENT: 'a b' }))), /PROFILER_DEPLOYMENT must be a name/)
})

t.test('the start-up status line shows the store without its password', async t => {
  const line = profilerStatus(loadConfig({ PROFILER_DATABASE_URL: 'postgres://profiler:s3cret-pw@db.example:5432/profiles', PROFILER_DEPLOYMENT: 'B' }))
  t.match(line, 'store PostgreSQL postgres://profiler:***@db.example:5432/profiles')
  t.match(line, 'deployment B')
  t.notMatch(line, 's3cret')
})

t.test('PROFILER_DATABASE_PATH=":memory:" is refused (the reader and the writer thread would open two databases)', async t => {
  t.throws(() => loadConfig({ PROFILER_DATABASE_PATH: ':memory:' }), new ConfigError('Invalid environment: PROFILER_DATABASE_PATH cannot be ":memory:" (the writer thread and the pages would open two different databases): give a file path'))
})

t.test('server timeouts, load shedding and trusted hosts: documented defaults, validated values', async t => {
  t.match(loadConfig({}), { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5000, connectionTimeoutMs: 60_000, maxEventLoopDelayMs: 1000, trustedHosts: [] })
  t.match(loadConfig({ REQUEST_TIMEOUT: '2s', HEADERS_TIMEOUT: '1500ms', MAX_EVENT_LOOP_DELAY: '0ms' }), { requestTimeoutMs: 2000, headersTimeoutMs: 1500, maxEventLoopDelayMs: 0 })
  t.throws(() => loadConfig({ REQUEST_TIMEOUT: 'soon' }), { message: 'Invalid environment: REQUEST_TIMEOUT must be a duration such as 500ms, 90s, 30m, 12h or 2d (got "soon")' })
  t.throws(() => loadConfig({ REQUEST_TIMEOUT: '5s', HEADERS_TIMEOUT: '10s' }), { message: 'Invalid environment: HEADERS_TIMEOUT (10s) must not be longer than REQUEST_TIMEOUT (5s)' })
  const [pattern] = loadConfig({ TRUSTED_HOSTS: 'example\\.com, .*\\.example\\.com' }).trustedHosts
  t.ok(pattern?.test('EXAMPLE.com'), 'case-insensitive')
  t.notOk(pattern?.test('example.com.evil.test'), 'anchored')
  t.throws(() => loadConfig({ TRUSTED_HOSTS: '(unclosed' }), { message: /^Invalid environment: TRUSTED_HOSTS has an invalid regular expression "\(unclosed"/ })
})
