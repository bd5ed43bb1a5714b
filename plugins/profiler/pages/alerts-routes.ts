import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { HttpError } from '../../../lib/http-error.js'
import type { AlertService } from '../alerts/alert-service.js'
import { alertsJson, readAlerts, type AlertsAnswer } from '../query/alerts-json.js'
import { html, wantsJson } from './render.js'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
const State = Type.Union([Type.Literal('normal'), Type.Literal('pending'), Type.Literal('firing'), Type.Literal('resolved')])

const AlertsSchema = Type.Object({
  evaluateEvery: Nullable(Type.String()),
  rules: Type.Array(Type.Object({
    name: Type.String(),
    route: Type.String(),
    method: Type.String(),
    deployment: Nullable(Type.String()),
    compareTo: Nullable(Type.String()),
    measure: Type.String(),
    direction: Type.String(),
    threshold: Type.Number(),
    resolve: Type.Number(),
    window: Type.String(),
    minRequests: Type.Integer(),
    pendingFor: Type.String(),
    repeatEvery: Type.String(),
    notify: Type.Array(Type.String()),
    state: State,
    stats: Type.String(),
    profiles: Type.String(),
    routes: Type.Array(Type.Object({
      route: Type.String(),
      method: Type.String(),
      state: State,
      since: Type.String(),
      value: Nullable(Type.Number()),
      valueText: Type.String(),
      count: Type.Integer(),
      evaluated: Type.String(),
      stats: Type.String(),
      profiles: Type.String()
    }))
  })),
  changes: Type.Array(Type.Object({ at: Type.String(), rule: Type.String(), route: Type.String(), method: Type.String(), state: State, value: Nullable(Type.Number()) })),
  deliveries: Type.Array(Type.Object({
    id: Type.Integer(),
    webhook: Type.String(),
    rule: Type.String(),
    state: Type.String(),
    created: Type.String(),
    status: Type.String(),
    attempts: Type.Integer(),
    next: Nullable(Type.String()),
    done: Nullable(Type.String()),
    lastError: Nullable(Type.String())
  })),
  /** This instance's part: whether it evaluates (holds the lease), when it last did, its last failure. */
  instance: Nullable(Type.Object({ evaluating: Type.Boolean(), lastEvaluated: Nullable(Type.String()), lastError: Nullable(Type.String()) }))
})

/** The alerts as this instance reads them from the store; none without a rules file. */
export async function currentAlerts (alerts: AlertService | null): Promise<AlertsAnswer> {
  if (alerts === null) return alertsJson(null, [], { changes: [], deliveries: [] })
  try {
    return await readAlerts(alerts.rulesFile, await alerts.reader())
  } catch (err) {
    throw new HttpError(503, `The alerts cannot be read at the moment: ${(err as Error).message}`, { name: 'ServiceUnavailableError' })
  }
}

/** /_profiler/alerts: each rule's state per route, and the history of changes and deliveries. */
export const alertsRoutes: FastifyPluginAsyncTypebox<{ alerts: AlertService | null }> = async (app, { alerts }) => {
  app.get('/alerts', { config: { profile: false }, schema: { response: { 200: AlertsSchema } } }, async (request, reply) => {
    const body = { ...await currentAlerts(alerts), instance: alerts?.status() ?? null }
    if (wantsJson(request)) return body
    return html(reply, 'profiler/alerts.hbs', { title: 'Alerts - Profiler', ...body, firing: body.rules.filter(rule => rule.state === 'firing').length })
  })
}
