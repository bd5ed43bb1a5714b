import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { buildApp } from '../../app.js'
import { loadConfig, type Config } from '../../config.js'

/**
 * A config on real SQLite files in the test's own temp dir (or on PostgreSQL where the env gives
 * PROFILER_DATABASE_URL / DATABASE_URL); env values as strings, like the real thing.
 */
export function testConfig (t: Test, env: Record<string, string> = {}): Config {
  const dir = t.testdir()
  return loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    ...(env.DATABASE_URL === undefined ? { DATABASE_PATH: join(dir, 'app.sqlite') } : {}),
    ...(env.PROFILER_DATABASE_URL === undefined ? { PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite') } : {}),
    ...env
  })
}

/** The whole app, closed when the test ends. `extend` may add test-only routes before ready. */
export async function buildTestApp (
  t: Test,
  env: Record<string, string> = {},
  extend?: (app: FastifyInstance) => void | Promise<void>
): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(t, env))
  t.teardown(async () => { await app.close() })
  if (extend !== undefined) await extend(app)
  await app.ready()
  return app
}

export function postJson (app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) })
}
