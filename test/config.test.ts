import t from 'tap'
import { ConfigError, loadConfig } from '../config.js'

t.test('defaults', async t => {
  const config = loadConfig({})
  t.match(config, {
    port: 8000,
    host: '127.0.0.1',
    nodeEnv: 'development',
    production: false,
    profiler: true,
    trustProxy: false,
    logLevel: 'info'
  })
  t.match(config.databasePath, /var\/app\.sqlite$/)
  t.match(config.profilerDatabasePath, /var\/profiler\.sqlite$/)
})

t.test('the profiler is off in production unless PROFILER=on', async t => {
  t.equal(loadConfig({ NODE_ENV: 'production' }).profiler, false)
  t.equal(loadConfig({ NODE_ENV: 'production', PROFILER: 'on' }).profiler, true)
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
