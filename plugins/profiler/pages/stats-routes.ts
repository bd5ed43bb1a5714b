import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { STATUS_CODES } from 'node:http'
import type { ProfileStore } from '../store/profile-store.js'
import type { RouteStats } from '../stats/rollup.js'
import { invalid, NO_ROUTE } from './search-filters.js'
import { formatMs } from './units.js'
import { html, wantsJson } from './render.js'
import { statusClass } from './view-model.js'

/** The windows the statistics page offers, and the default. */
const WINDOWS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 604_800_000 }
const DEFAULT_WINDOW = '1h'

const StatsQuery = Type.Object({ window: Type.Optional(Type.String({ maxLength: 20 })) })

const StatsLine = Type.Object({
  route: Type.Union([Type.String(), Type.Null()]),
  method: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Integer(), Type.Null()]),
  count: Type.Integer(),
  statusClasses: Type.Object({ '1xx': Type.Integer(), '2xx': Type.Integer(), '3xx': Type.Integer(), '4xx': Type.Integer(), '5xx': Type.Integer() }),
  meanMs: Type.Number(),
  p50Ms: Type.Number(),
  p95Ms: Type.Number(),
  p99Ms: Type.Number(),
  maxMs: Type.Number(),
  listing: Type.String()
})

/** The listing filtered to one line of the statistics, from the window's start. */
function listingHref (line: RouteStats, fromMs: number): string {
  const params = new URLSearchParams()
  if (line.method !== null) params.append('method', line.method)
  if (line.status !== null) params.append('status_code', String(line.status))
  params.append('route', line.route ?? NO_ROUTE)
  params.append('start', String(fromMs / 1000))
  params.append('limit', '10')
  params.append('type', 'request')
  return `/_profiler/empty/search/results?${params.toString()}`
}

/** /_profiler/stats: per route and method (unmatched requests per status), from the writer's rollups. */
export const statsRoutes: FastifyPluginAsyncTypebox<{ store: ProfileStore }> = async (app, { store }) => {
  app.get('/stats', {
    config: { profile: false },
    schema: {
      querystring: StatsQuery,
      response: {
        200: Type.Object({ window: Type.String(), from: Type.String(), to: Type.String(), routes: Type.Array(StatsLine) })
      }
    }
  }, async (request, reply) => {
    const window = request.query.window === undefined || request.query.window === '' ? DEFAULT_WINDOW : request.query.window
    const windowMs = WINDOWS[window]
    if (windowMs === undefined || !Object.hasOwn(WINDOWS, window)) throw invalid('window', Object.keys(WINDOWS).join(', '), window)
    const now = Date.now()
    const { fromMs, routes } = await store.routeStats(now, windowMs)
    const lines = routes.map(line => ({ ...line, listing: listingHref(line, fromMs) }))
    const body = { window, from: new Date(fromMs).toISOString(), to: new Date(now).toISOString(), routes: lines }
    if (wantsJson(request)) return body
    return html(reply, 'profiler/stats.hbs', {
      title: `Route statistics (${window}) - Profiler`,
      ...body,
      windows: Object.keys(WINDOWS).map(name => ({ name, active: name === window })),
      rows: lines.map(line => ({
        ...line,
        label: line.route ?? '(no route matched)',
        methodText: line.method ?? 'any',
        statusText: line.status === null ? null : `${line.status} ${STATUS_CODES[line.status] ?? ''}`.trim(),
        statusClass: line.status === null ? null : statusClass(line.status),
        p50: formatMs(line.p50Ms),
        p95: formatMs(line.p95Ms),
        p99: formatMs(line.p99Ms),
        max: formatMs(line.maxMs)
      }))
    })
  })
}
