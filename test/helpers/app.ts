import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { buildApp, type AppOverrides } from '../../app.js'
import { loadConfig, type Config } from '../../config.js'
import { freshDir } from './dirs.js'

/**
 * A config on real SQLite files in a new folder of the test's own (or on PostgreSQL where the env gives
 * PROFILER_DATABASE_URL / DATABASE_URL); env values as strings, like the real thing.
 */
export function testConfig (t: Test, env: Record<string, string> = {}): Config {
  const dir = freshDir(t, 'app-')
  return loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    ...(env.DATABASE_URL === undefined ? { DATABASE_PATH: join(dir, 'app.sqlite') } : {}),
    ...(env.PROFILER_DATABASE_URL === undefined ? { PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite') } : {}),
    // Tests drive the loop flat out with inject() (and run instrumented, several files at a time):
    // load shedding would answer 503s there. test/plugins/load-shedding.test.ts turns it on.
    MAX_EVENT_LOOP_DELAY: '0ms',
    // The writer's work on the test's own thread: no thread to start per app (the tests about the
    // thread, and every real server under test/e2e, run it in its thread).
    PROFILER_WRITER: 'inline',
    ...env
  })
}

/** The whole app, closed when the test ends. `extend` may add test-only routes before ready; `overrides` as buildApp's. */
export async function buildTestApp (
  t: Test,
  env: Record<string, string> = {},
  extend?: (app: FastifyInstance) => void | Promise<void>,
  overrides: AppOverrides = {}
): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(t, env), overrides)
  t.teardown(async () => { await app.close() })
  if (extend !== undefined) await extend(app)
  await app.ready()
  return app
}

/** buildTestApp's app listening on a real socket of 127.0.0.1 (closed when the test ends); `extend` as buildTestApp's. */
export async function listeningApp (
  t: Test,
  env: Record<string, string> = {},
  overrides: AppOverrides = {},
  extend?: (app: FastifyInstance) => void | Promise<void>
): Promise<{ app: FastifyInstance, port: number, address: string }> {
  const app = await buildTestApp(t, env, extend, overrides)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  return { app, port, address: `http://127.0.0.1:${port}` }
}

export function postJson (app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) })
}

/**
 * The business API while the advisors' database is down, on either engine: a degraded status poll
 * and a lookup, both 503, the lookup saying what is down. Returns the lookup's response.
 */
export async function expectAdvisorsUnavailable (t: Test, app: FastifyInstance) {
  const poll = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  t.equal(poll.statusCode, 503)
  t.match(poll.json(), { status: 'degraded', checks: { database: 'failed' } })
  const lookup = await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' })
  t.equal(lookup.statusCode, 503)
  t.equal(lookup.json().message, 'The advisor database is unavailable at the moment; try again later')
  return lookup
}
