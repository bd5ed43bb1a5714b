// The alerts as the page's JSON twin answers them: shared by the page, the command line
// (`profiler alerts`) and the MCP tool (`list_alerts`), so that all three say the same. Webhooks
// are named, never shown: their URLs and secrets stay in the rules file.
import { durationText } from '../../../lib/duration.js'
import type { AlertRule, AlertRules } from '../../../lib/alerts/rules-file.js'
import type { AlertHistory, AlertReader, AlertState, AlertStateRow } from '../engine/alert-store.js'
import { alertLinks, valueText } from '../alerts/notification.js'

/** How many state changes and deliveries the answer lists, newest first. */
const HISTORY_SHOWN = 100

/** The order states are listed in, the most urgent first; a rule's state is the most urgent of its routes'. */
const URGENCY: AlertState[] = ['firing', 'pending', 'resolved', 'normal']

interface RouteState {
  route: string
  method: string
  state: AlertState
  since: string
  value: number | null
  valueText: string
  count: number
  evaluated: string
  /** The stats page narrowed to this route and the rule's window. */
  stats: string
  /** This route and method's profiles of the rule's window, slowest first. */
  profiles: string
}

interface AlertRuleAnswer {
  name: string
  route: string
  method: string
  deployment: string | null
  compareTo: string | null
  measure: string
  direction: 'above' | 'below'
  threshold: number
  resolve: number
  window: string
  minRequests: number
  pendingFor: string
  repeatEvery: string
  /** The webhooks notified, by name. */
  notify: string[]
  /** The most urgent state of its routes ('normal' before any evaluation). */
  state: AlertState
  /** The stats page narrowed to the rule's route (if one) and window. */
  stats: string
  /** The profiles of the rule's route (if one) and method (if one) over its window, slowest first. */
  profiles: string
  routes: RouteState[]
}

export interface AlertsAnswer {
  /** The rules file's evaluation interval; null: no rules file (PROFILER_ALERTS unset). */
  evaluateEvery: string | null
  rules: AlertRuleAnswer[]
  changes: Array<{ at: string, rule: string, route: string, method: string, state: AlertState, value: number | null }>
  deliveries: Array<{ id: number, webhook: string, rule: string, state: string, created: string, status: string, attempts: number, next: string | null, done: string | null, lastError: string | null }>
}

const iso = (ms: number | null): string | null => ms === null ? null : new Date(ms).toISOString()

function ruleAnswer (rule: AlertRule, rows: AlertStateRow[], nowMs: number): AlertRuleAnswer {
  const routes = rows.filter(row => row.rule === rule.name)
    .sort((a, b) => URGENCY.indexOf(a.state) - URGENCY.indexOf(b.state) || a.route.localeCompare(b.route) || a.method.localeCompare(b.method))
    .map(row => ({
      route: row.route,
      method: row.method,
      state: row.state,
      since: iso(row.sinceMs) as string,
      value: row.value,
      valueText: valueText(rule, row.value),
      count: row.count,
      evaluated: iso(row.evaluatedMs) as string,
      // The window its value was read over (that of its last evaluation), as a notification's links.
      ...alertLinks(rule, row.route, row.method, row.evaluatedMs, null)
    }))
  const first = rows.filter(row => row.rule === rule.name).sort((a, b) => b.evaluatedMs - a.evaluatedMs)[0]
  const links = alertLinks(rule, rule.route === '*' ? null : rule.route, rule.method === '*' ? null : rule.method, first?.evaluatedMs ?? nowMs, null)
  return {
    name: rule.name,
    route: rule.route,
    method: rule.method,
    deployment: rule.deployment,
    compareTo: rule.compareTo,
    measure: rule.measure,
    direction: rule.direction,
    threshold: rule.threshold,
    resolve: rule.resolve,
    window: durationText(rule.windowMs),
    minRequests: rule.minRequests,
    pendingFor: durationText(rule.pendingForMs),
    repeatEvery: durationText(rule.repeatEveryMs),
    notify: rule.notify,
    state: routes[0]?.state ?? 'normal',
    stats: links.stats,
    profiles: links.profiles,
    routes
  }
}

/** The rules (from the file, when known) with their stored states, and the newest history. */
export function alertsJson (rules: AlertRules | null, states: AlertStateRow[], history: AlertHistory, nowMs = Date.now()): AlertsAnswer {
  return {
    evaluateEvery: rules === null ? null : durationText(rules.evaluateEveryMs),
    rules: (rules?.rules ?? []).map(rule => ruleAnswer(rule, states, nowMs)),
    changes: history.changes.map(change => ({ at: iso(change.atMs) as string, rule: change.rule, route: change.route, method: change.method, state: change.state, value: change.value })),
    deliveries: history.deliveries.map(row => ({
      id: row.id,
      webhook: row.webhook,
      rule: row.rule,
      state: row.state,
      created: iso(row.createdMs) as string,
      status: row.status,
      attempts: row.attempts,
      next: row.status === 'pending' ? iso(row.nextMs) : null,
      done: iso(row.doneMs),
      lastError: row.lastError
    }))
  }
}

/** Reads the states and the newest history from `reader`, then answers as alertsJson. */
export async function readAlerts (rules: AlertRules | null, reader: AlertReader): Promise<AlertsAnswer> {
  return alertsJson(rules, await reader.states(), await reader.history(HISTORY_SHOWN))
}

/** The routes (method and route) a firing rule watches, for the stats page's mark: "METHOD route" -> rule names. */
export function firingRoutes (answer: AlertsAnswer): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const rule of answer.rules) {
    for (const route of rule.routes) {
      if (route.state !== 'firing') continue
      const key = `${route.method} ${route.route}`
      out.set(key, [...out.get(key) ?? [], rule.name])
    }
  }
  return out
}
