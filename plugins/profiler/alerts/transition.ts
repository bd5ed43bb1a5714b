// A rule's state machine for one route and method, as Grafana's and Sentry's alert rules have it:
// normal -> pending (the condition holds) -> firing (it held for pendingFor) -> resolved (the value
// is back past the resolve threshold); while firing, a reminder every repeatEvery. A window with too
// few requests gives no verdict: a pending alert goes back to normal, a firing one stays firing.
import type { AlertRule } from '../../../lib/alerts/rules-file.js'
import type { AlertState, AlertStateRow } from '../engine/alert-store.js'
import type { Reading } from './readings.js'

/** What an evaluation does with one route and method: its new row, whether the state changed, and what to notify. */
export interface Step { row: AlertStateRow, changed: boolean, notify: 'firing' | 'repeat' | 'resolved' | null }

function breaches (rule: AlertRule, value: number): boolean {
  return rule.direction === 'above' ? value > rule.threshold : value < rule.threshold
}

/** Back past the resolve threshold (strictly; at the threshold itself when they are the same). */
function clears (rule: AlertRule, value: number): boolean {
  if (rule.resolve === rule.threshold) return !breaches(rule, value)
  return rule.direction === 'above' ? value < rule.resolve : value > rule.resolve
}

export function step (rule: AlertRule, reading: Reading, previous: AlertStateRow | undefined, nowMs: number): Step {
  const before: AlertState = previous?.state ?? 'normal'
  const base = { rule: rule.name, route: reading.route, method: reading.method, count: reading.count, evaluatedMs: nowMs }
  const keep = (notify: Step['notify'] = null): Step => ({
    row: { ...base, state: before, sinceMs: previous?.sinceMs ?? nowMs, value: reading.value ?? previous?.value ?? null, notifiedMs: notify === null ? previous?.notifiedMs ?? null : nowMs },
    changed: false,
    notify
  })
  const become = (state: AlertState, notify: Step['notify'] = null): Step => ({
    row: { ...base, state, sinceMs: nowMs, value: reading.value, notifiedMs: notify === null ? previous?.notifiedMs ?? null : nowMs },
    changed: true,
    notify
  })
  const repeatDue = (): boolean => previous?.notifiedMs === null || previous?.notifiedMs === undefined || nowMs - previous.notifiedMs >= rule.repeatEveryMs
  const { value } = reading
  if (value === null) {
    if (before === 'pending') return become('normal')
    if (before === 'firing' && repeatDue()) return keep('repeat')
    return keep()
  }
  switch (before) {
    case 'normal':
    case 'resolved':
      if (!breaches(rule, value)) return keep()
      return rule.pendingForMs === 0 ? become('firing', 'firing') : become('pending')
    case 'pending':
      if (!breaches(rule, value)) return become('normal')
      return nowMs - (previous?.sinceMs ?? nowMs) >= rule.pendingForMs ? become('firing', 'firing') : keep()
    case 'firing':
      if (clears(rule, value)) return become('resolved', 'resolved')
      return repeatDue() ? keep('repeat') : keep()
  }
}
