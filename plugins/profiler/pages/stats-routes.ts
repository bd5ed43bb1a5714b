import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ProfileStore } from '../runtime/profile-store.js'
import { html, wantsJson } from './render.js'
import { routeStatsJson, routeStatsText, WINDOW_NAMES } from '../query/stats-json.js'
import { statusClass } from '../units.js'

const StatsQuery = Type.Object({ window: Type.Optional(Type.String({ maxLength: 20 })), deployment: Type.Optional(Type.String({ maxLength: 64 })) })

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
  listing: Type.String()
})

/** The page's own URL for a window and a deployment (null: all). */
function statsHref (window: string, deployment: string | null): string {
  const params = new URLSearchParams({ window })
  if (deployment !== null) params.append('deployment', deployment)
  return `/_profiler/stats?${params.toString()}`
}

/** /_profiler/stats: per route and method (unmatched requests per status), from the writer's rollups. */
export const statsRoutes: FastifyPluginAsyncTypebox<{ store: ProfileStore, statsMaxAgeMs: number, /** What is kept as profiles, for people. */ kept: string }> = async (app, { store, statsMaxAgeMs, kept }) => {
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
          routes: Type.Array(StatsLine)
        })
      }
    }
  }, async (request, reply) => {
    const body = await routeStatsJson(store, request.query, statsMaxAgeMs)
    if (wantsJson(request)) return body
    // A choice of deployment only when several share this store (or one is asked for).
    const names = await store.deployments()
    const deployments = names.length > 1 || body.deployment !== null
      ? [{ name: null, href: statsHref(body.window, null), active: body.deployment === null }, ...names.map(name => ({ name, href: statsHref(body.window, name), active: name === body.deployment }))]
      : []
    return html(reply, 'profiler/stats.hbs', {
      title: `Route statistics (${body.window}${body.deployment === null ? '' : `, ${body.deployment}`}) - Profiler`,
      ...body,
      windows: WINDOW_NAMES.map(name => ({ name, href: statsHref(name, body.deployment), active: name === body.window })),
      deployments,
      keptText: kept,
      rows: body.routes.map(line => ({
        ...line,
        ...routeStatsText(line),
        statusClass: line.status === null ? null : statusClass(line.status)
      }))
    })
  })
}
