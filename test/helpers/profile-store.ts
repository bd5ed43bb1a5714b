import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { buildTestApp, postJson } from './app.js'
import { tokenOf } from './debug-token.js'

export const SECRET_BEARER = 'Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.c2lnbmF0dXJl'

/** Tokens of the requests recorded by `recordedApp`, by what each request was. */
export interface RecordedTokens { found: string, notFound: string, robots: string, wrongMethod: string, poll: string }

/**
 * A running app whose real store holds five profiles (a 200, a 404 lookup, a 404 path, a 405,
 * a poll), written out; the command line reads the same store while the app runs: the SQLite
 * file, or the PostgreSQL database when `appEnv` gives PROFILER_DATABASE_URL.
 */
export async function recordedApp (t: Test, appEnv: Record<string, string> = {}): Promise<{ app: FastifyInstance, env: Record<string, string>, tokens: RecordedTokens }> {
  const app = await buildTestApp(t, appEnv)
  const tokens: RecordedTokens = {
    found: tokenOf(await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' }, { authorization: SECRET_BEARER })),
    notFound: tokenOf(await postJson(app, '/ccenter/getConseillerByCode', { code: 'NOPE' })),
    robots: tokenOf(await app.inject({ method: 'GET', url: '/robots.txt', remoteAddress: '10.0.0.7' })),
    wrongMethod: tokenOf(await app.inject({ method: 'GET', url: '/ccenter/getConseillerByCode' })),
    poll: tokenOf(await postJson(app, '/monitor/MonitorPooling', {}))
  }
  await app.profileStore.flush()
  const { profilerDatabaseUrl, profilerDatabasePath } = app.config
  return { app, env: profilerDatabaseUrl === null ? { PROFILER_DATABASE_PATH: profilerDatabasePath } : { PROFILER_DATABASE_URL: profilerDatabaseUrl }, tokens }
}
