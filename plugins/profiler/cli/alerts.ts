// `profiler alerts` and the MCP tool `list_alerts`: the alert rules (from PROFILER_ALERTS, when the
// command line is given it) with the states the service stored, and the newest history. Webhooks are
// named only: their URLs and secrets stay in the file.
import { loadAlertRules, AlertRulesError, type AlertRules } from '../../../lib/alerts/rules-file.js'
import type { StoreConfig } from '../../../config.js'
import { openAlertReader } from '../engine/open-alert-store.js'
import { StoreUnavailableError } from '../engine/open-read-only.js'
import { readAlerts, type AlertsAnswer } from '../query/alerts-json.js'
import { listTime } from '../units.js'
import { alignedTable, printable } from './format.js'

/** The rules file the environment names, validated as the service does; null when none is named. */
export function rulesOf (env: Record<string, string | undefined>): AlertRules | null {
  const path = env.PROFILER_ALERTS
  if (path === undefined || path === '') return null
  try {
    return loadAlertRules(path)
  } catch (err) {
    if (err instanceof AlertRulesError) throw new AlertRulesError(`PROFILER_ALERTS (${path}) ${err.message}`)
    throw err
  }
}

/** The alerts as the page's JSON twin answers them, read from the store read-only. */
export async function alertsAnswer (config: Pick<StoreConfig, 'profilerDatabasePath' | 'profilerDatabaseUrl'>, rules: AlertRules | null): Promise<AlertsAnswer> {
  const target = config.profilerDatabaseUrl === null ? { engine: 'sqlite' as const, path: config.profilerDatabasePath } : { engine: 'postgres' as const, url: config.profilerDatabaseUrl }
  let reader
  try {
    reader = await openAlertReader(target)
  } catch (err) {
    throw new StoreUnavailableError(`Cannot open the profile store: ${(err as Error).message}`, { cause: err })
  }
  try {
    return await readAlerts(rules, reader)
  } catch (err) {
    throw new StoreUnavailableError(`Cannot read the alerts: ${(err as Error).message}`, { cause: err })
  } finally {
    await reader.close().catch(() => {})
  }
}

const RULE_COLUMNS = ['Rule', 'State', 'Last value', 'Since', 'Measure', 'Window', 'Method', 'Route'] as const

/** The rules and their states, then the newest state changes and deliveries. */
export function alertsText (answer: AlertsAnswer): string {
  if (answer.evaluateEvery === null) {
    return 'No rules file: set PROFILER_ALERTS to the file the service reads to list its rules.\n' + historyText(answer)
  }
  const rows = answer.rules.flatMap(rule => {
    const measure = rule.compareTo === null ? `${rule.measure} ${rule.direction} ${rule.threshold}` : `${rule.measure} ${rule.deployment ?? ''}/${rule.compareTo} above ${rule.threshold}`
    const routes = rule.routes.length === 0 ? [null] : rule.routes
    return routes.map(route => [
      printable(rule.name),
      route?.state ?? 'normal',
      route === null ? '' : printable(route.valueText),
      route === null ? '' : listTime(route.since),
      printable(measure),
      rule.window,
      printable(route?.method ?? rule.method),
      printable(route?.route ?? rule.route)
    ])
  })
  const rules = rows.length === 0 ? 'The rules file holds no rule.\n' : alignedTable(RULE_COLUMNS, rows)
  return `Alert rules, evaluated every ${answer.evaluateEvery}\n${rules}${historyText(answer)}`
}

function historyText (answer: AlertsAnswer): string {
  const changes = answer.changes.length === 0
    ? 'No state change yet.\n'
    : alignedTable(['At', 'Rule', 'State', 'Method', 'Route'], answer.changes.map(change => [listTime(change.at), printable(change.rule), change.state, printable(change.method), printable(change.route)]))
  const deliveries = answer.deliveries.length === 0
    ? 'No notification sent yet.\n'
    : alignedTable(['Queued', 'Rule', 'Notification', 'Webhook', 'Status', 'Attempts', 'Last error'], answer.deliveries.map(row =>
      [listTime(row.created), printable(row.rule), row.state, printable(row.webhook), row.status, String(row.attempts), printable(row.lastError ?? '')]))
  return `\nState changes, newest first\n${changes}\nDeliveries, newest first\n${deliveries}`
}
