import type { FastifyInstance } from 'fastify'

export interface ListedProfile { token: string, ip: string, method: string, url: string, status: number, time: string, durationMs: number, deployment: string }

/** The Authorization header for the profiler pages, `secret` as the password. */
export function basicAuth (secret: string, user = 'operator'): string {
  return `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`
}

/** JSON from the profiler's pages, with the app's own secret when it has one. */
function profilerHeaders (app: FastifyInstance): Record<string, string> {
  const secret = app.config.profilerSecret
  return { accept: 'application/json', ...(secret === null ? {} : { authorization: basicAuth(secret) }) }
}

/** The JSON listing (newest first), after writing whatever the profiler still has queued. */
export async function listProfiles (app: FastifyInstance, query = 'limit=100'): Promise<ListedProfile[]> {
  await app.profileStore.flush()
  const res = await app.inject({ url: `/_profiler/empty/search/results?${query}`, headers: profilerHeaders(app) })
  if (res.statusCode !== 200) throw new Error(`listing answered ${res.statusCode}: ${res.body}`)
  return (res.json() as { results: ListedProfile[] }).results
}

/** A profile with its panels through the JSON detail page. */
export async function profileJson (app: FastifyInstance, token: string, query = ''): Promise<Record<string, any>> {
  await app.profileStore.flush()
  const res = await app.inject({ url: `/_profiler/${token}${query}`, headers: profilerHeaders(app) })
  if (res.statusCode !== 200) throw new Error(`profile ${token} answered ${res.statusCode}: ${res.body}`)
  return res.json()
}
