import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ProfileStore } from '../runtime/profile-store.js'
import { html, wantsJson } from './render.js'
import { routeStatsJson, routeStatsText, WINDOW_NAMES } from '../query/stats-json.js'
import { comparisonText } from '../query/stats-compare.js'
import { sparklines } from './sparkline.js'
import { statusClass } from '../units.js'
import { KeptSchema, type Kept } from '../schemas.js'
import type { AlertService } from '../alerts/alert-service.js'
import { firingRoutes } from '../query/alerts-json.js'
import { currentAlerts } from './alerts-routes.js'

const StatsQuery = Type.Object({
  window: Type.Optional(Type.String({ maxLength: 20 })),
  deployment: Type.Optional(Type.String({ maxLength: 64 })),
  compare: Type.Optional(Type.String({ maxLength: 64 })),
  /** One route's lines only (an alert's link). */
  route: Type.Optional(Type.String({ maxLength: 2048 }))
})

const Figures = Type.Union([Type.Object({ count: Type.Integer(), p50Ms: Type.Number(), p95Ms: Type.Number(), p99Ms: Type.Number() }), Type.Null()])
const Difference = Type.Object({ diffMs: Type.Union([Type.Number(), Type.Null()]), slower: Type.Union([Type.String(), Type.Null()]) })
const ComparisonLine = Type.Object({
  route: Type.Union([Type.String(), Type.Null()]),
  method: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Integer(), Type.Null()]),
  a: Figures,
  b: Figures,
  p50: Difference,
  p95: Difference,
  p99: Difference
})

const StatsLine = Type.Object({
  route: Type.Union([Type.String(), Type.Null()]),
  method: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Integer(), Type.Null()]),
  count: Type.Integer(),
  kept: Type.Integer(),
  statusClasses: Type.Object({ '1xx': Type.Integer(), '2xx': Type.Integer(), '3xx': Type.Integer(), '4xx': Type.Integer(), '5xx': Type.Integer() }),
  meanMs: Type.Number(),
  p50Ms: Type.Number(),
  p95Ms: Type.Number(),
  p99Ms: Type.Number(),
  maxMs: Type.Number(),
  listing: Type.String(),
  /** The alert rules firing on this line (PROFILER_ALERTS), by name. */
  firingAlerts: Type.Optional(Type.Array(Type.String())),
  trend: Type.Object({ counts: Type.Array(Type.Integer()), p95Ms: Type.Array(Type.Union([Type.Number(), Type.Null()])) })
})

/** The page's own URL for a window and a deployment (null: all), and one to compare it with. */
function statsHref (window: string, deployment: string | null, compare: string | null = null): string {
  const params = new URLSearchParams({ window })
  if (deployment !== null) params.append('deployment', deployment)
  if (deployment !== null && compare !== null) params.append('compare', compare)
  return `/_profiler/stats?${params.toString()}`
}

/** /_profiler/stats: per route and method (unmatched requests per status), from the writer's rollups. */
export const statsRoutes: FastifyPluginAsyncTypebox<{ store: ProfileStore, statsMaxAgeMs: number, /** What is kept as profiles. */ kept: Kept, alerts: AlertService | null }> = async (app, { store, statsMaxAgeMs, kept, alerts }) => {
  app.get('/stats', {
    config: { profile: false },
    schema: {
      querystring: StatsQuery,
      response: {
        200: Type.Object({
          window: Type.String(),
          deployment: Type.Union([Type.String(), Type.Null()]),
          from: Type.String(),
          to: Type.String(),
          bound: Type.Union([Type.Object({ statsMaxAge: Type.String(), from: Type.String() }), Type.Null()]),
          givenUp: Type.Union([Type.Object({ from: Type.String() }), Type.Null()]),
          routes: Type.Array(StatsLine),
          trendSpan: Type.Union([Type.Literal('1m'), Type.Literal('1h')]),
          trendFrom: Type.String(),
          compare: Type.Union([Type.String(), Type.Null()]),
          comparison: Type.Union([Type.Array(ComparisonLine), Type.Null()]),
          // This instance's, not the store's: the CLI and MCP (routeStatsJson alone) leave these out.
          kept: KeptSchema,
          /** Requests this instance could not count (the statistics' queue was full) since it started: the figures above lack them. */
          statisticsDropped: Type.Integer(),
          /** Requests the figures lack (any instance of the store, and this one's not yet written), per period overlapping the window. */
          missing: Type.Object({
            total: Type.Integer(),
            windows: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), count: Type.Integer() }))
          })
        })
      }
    }
  }, async (request, reply) => {
    const answer = await routeStatsJson(store, request.query, statsMaxAgeMs)
    const route = request.query.route === undefined || request.query.route === '' ? null : request.query.route
    // The firing alerts' mark: a page that cannot read them still shows the statistics.
    const firing = alerts === null ? new Map<string, string[]>() : await currentAlerts(alerts).then(firingRoutes, () => new Map<string, string[]>())
    const body = {
      ...answer,
      routes: answer.routes.filter(line => route === null || line.route === route)
        // Only with a rules file: without one, the lines are what the command line and MCP answer.
        .map(line => alerts === null ? line : { ...line, firingAlerts: firing.get(`${line.method ?? ''} ${line.route ?? ''}`) ?? [] }),
      comparison: answer.comparison?.filter(line => route === null || line.route === route) ?? null
    }
    const statisticsDropped = store.statisticsDropped
    if (wantsJson(request)) return { ...body, kept, statisticsDropped }
    // A choice of deployment only when several share this store (or one is asked for).
    const names = await store.deployments()
    const deployments = names.length > 1 || body.deployment !== null
      ? [{ name: null, href: statsHref(body.window, null), active: body.deployment === null }, ...names.map(name => ({ name, href: statsHref(body.window, name), active: name === body.deployment }))]
      : []
    return html(reply, 'profiler/stats.hbs', {
      title: `Route statistics (${body.window}${body.deployment === null ? '' : `, ${body.deployment}`}${body.compare === null ? '' : ` against ${body.compare}`}) - Profiler`,
      ...body,
      windows: WINDOW_NAMES.map(name => ({ name, href: statsHref(name, body.deployment, body.compare), active: name === body.window })),
      deployments,
      // With one deployment chosen, the others to compare it with (and the one compared, if any).
      comparisons: body.deployment === null
        ? []
        : [...new Set([...names, ...(body.compare === null ? [] : [body.compare])])].filter(name => name !== body.deployment)
            .map(name => ({ name, href: statsHref(body.window, body.deployment, name), active: name === body.compare })),
      keptText: kept.sentence,
      statisticsDropped,
      rows: body.routes.map(line => ({
        ...line,
        ...routeStatsText(line),
        statusClass: line.status === null ? null : statusClass(line.status),
        sparklines: sparklines(line.trend, body.trendSpan === '1m' ? 'minute' : 'hour', body.trendFrom)
      })),
      comparisonRows: body.comparison?.map(line => ({
        ...comparisonText(line),
        statusClass: line.status === null ? null : statusClass(line.status)
      }))
    })
  })
}
