import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'

export interface ListedProfile { token: string, ip: string, method: string, url: string, status: number, time: string, durationMs: number, deployment: string, queries: number, queryMs: number, traceId?: string | null }

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

/** A profiler page's answer as it is sent (status, content type, body), after writing whatever is queued. */
export async function profilerPage (app: FastifyInstance, path: string): Promise<{ statusCode: number, type: string, body: string }> {
  await app.profileStore.flush()
  const res = await app.inject({ url: `/_profiler${path}`, headers: profilerHeaders(app) })
  return { statusCode: res.statusCode, type: String(res.headers['content-type']), body: res.body }
}

/** A profiler page's HTML as a browser gets it (the app's own secret when it has one), after writing whatever is queued. */
export async function profilerHtml (app: FastifyInstance, path: string): Promise<string> {
  await app.profileStore.flush()
  const secret = app.config.profilerSecret
  const res = await app.inject({ url: `/_profiler${path}`, headers: secret === null ? {} : { authorization: basicAuth(secret) } })
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${res.body}`)
  return res.body
}

/**
 * The statistics' lines as figures to compare between two reads: each line's listing link starts where
 * the window starts, which moves with the clock (a minute boundary between two reads moves it).
 */
export function routeFigures (routes: Array<Record<string, any>>): unknown[] {
  return routes.map(line => ({ ...line, listing: String(line.listing).replace(/([?&]start=)[^&]*/, '$1') }))
}

/** The route statistics page's JSON twin (`query`: e.g. `?window=24h`). */
export async function statsJson (app: FastifyInstance, query = ''): Promise<{
  window: string
  deployment: string | null
  from: string
  to: string
  routes: Array<Record<string, any>>
  kept: { sample: number, keepSlowerThanMs: number, sentence: string }
  statisticsDropped: number
}> {
  const res = await profilerPage(app, `/stats${query}`)
  if (res.statusCode !== 200) throw new Error(`stats answered ${res.statusCode}: ${res.body}`)
  return JSON.parse(res.body)
}

type StatsAnswer = Awaited<ReturnType<typeof statsJson>>

/**
 * A page's JSON without what only the running service knows (`kept`: its sampling settings;
 * `statisticsDropped`: its own count): what the command line and the MCP server answer, reading the store alone.
 */
export function storeOnly<T extends Record<string, any>> (answer: T): Omit<T, 'kept' | 'statisticsDropped'> {
  const { kept, statisticsDropped, ...rest } = answer
  return rest
}

/**
 * `answer` (from the command line or the MCP server) is the page's JSON, read between `before` and
 * `after`: the same window and lines, its end between theirs, its start theirs (a minute may turn).
 */
export function sameStats (t: Test, answer: StatsAnswer, before: StatsAnswer, after: StatsAnswer): void {
  t.ok(before.to <= answer.to && answer.to <= after.to, `ends between the two page reads (${before.to} <= ${answer.to} <= ${after.to})`)
  const page = storeOnly(answer.from === before.from ? before : after)
  t.same({ ...answer, to: page.to }, page, `the page's JSON for window ${page.window}`)
}
