// Evaluates the alert rules and delivers their notifications, in the background of the service
// (never on a request's path). One loop ticks every half evaluation (a second at most): it takes or
// renews the store's lease (so that, with several instances on one store, one evaluates at a time and
// another takes over within an evaluation or two of its stopping); the holder evaluates every
// `evaluateEvery`, from the rollups (whatever the sample kept), and sends the queued deliveries, in
// order per webhook, each webhook on its own (one that hangs holds up nothing else).
import { randomUUID } from 'node:crypto'
import { BackgroundLoop } from '../background-loop.js'
import type { AlertRule, AlertRules } from '../../../lib/alerts/rules-file.js'
import type { AlertChange, AlertReader, AlertStateRow, AlertStore, DeliveryOutcome, DeliveryRow, NewDelivery } from '../engine/alert-store.js'
import type { WindowStats } from '../engine/contract.js'
import type { RouteStats } from '../stats/rollup.js'
import { readingsOf } from './readings.js'
import { step } from './transition.js'
import { notification } from './notification.js'
import { attempt, backoffMs, GIVE_UP_AFTER_MS } from './deliver.js'

/** The history (state changes, finished deliveries) is kept this long, and this many rows of each at most. */
const HISTORY_MAX_AGE_MS = 7 * 86_400_000
const HISTORY_MAX_ROWS = 1000

export interface AlertServiceOptions {
  rules: AlertRules
  /** This instance's deployment (PROFILER_DEPLOYMENT): part of its lease holder's name. */
  deployment: string
  openStore: () => Promise<AlertStore>
  routeStats: (nowMs: number, windowMs: number, deployment?: string) => Promise<WindowStats>
  log: { error: (message: string) => void, info: (message: string) => void }
}

export interface AlertServiceStatus {
  /** Whether this instance holds the lease (evaluates and delivers). */
  evaluating: boolean
  lastEvaluated: string | null
  /** The last evaluation's or store's failure; null once one succeeds. */
  lastError: string | null
}

export class AlertService {
  readonly holder: string
  private store: AlertStore | null = null
  private readonly loop: BackgroundLoop
  private readonly inFlight = new Set<string>()
  private readonly closing = new AbortController()
  private nextEvaluationMs = 0
  private holding = false
  private lastEvaluatedMs: number | null = null
  private lastError: string | null = null
  private readonly tickMs: number
  private readonly leaseMs: number

  constructor (private readonly options: AlertServiceOptions) {
    this.holder = `${options.deployment}/${randomUUID()}`
    const every = options.rules.evaluateEveryMs
    this.tickMs = Math.min(Math.max(50, Math.floor(every / 2)), 1000)
    this.leaseMs = Math.max(every, 1000)
    this.loop = new BackgroundLoop(async () => { await this.tick(); return false }, err => { this.failed(err) })
  }

  get rules (): AlertRule[] {
    return this.options.rules.rules
  }

  get rulesFile (): AlertRules {
    return this.options.rules
  }

  /** The store's alerts, for the pages (opened if it was not). */
  async reader (): Promise<AlertReader> {
    return await this.opened()
  }

  status (): AlertServiceStatus {
    return { evaluating: this.holding, lastEvaluated: this.lastEvaluatedMs === null ? null : new Date(this.lastEvaluatedMs).toISOString(), lastError: this.lastError }
  }

  start (): void {
    this.loop.start(this.tickMs)
    this.loop.wake()
  }

  /** Stops the loop and hands the lease over (an attempt in flight is cut short: retried by whoever holds the lease next). */
  async close (): Promise<void> {
    this.loop.stop()
    this.closing.abort()
    const store = this.store
    this.store = null
    if (store === null) return
    if (this.holding) await store.release(this.holder).catch(() => {})
    await store.close().catch(() => {})
  }

  /** The store, opened (and migrated) on first use, again after a failure. */
  private async opened (): Promise<AlertStore> {
    this.store ??= await this.options.openStore()
    return this.store
  }

  private failed (err: unknown): void {
    const message = `alerts: ${(err as Error).message ?? String(err)}`
    if (message !== this.lastError) this.options.log.error(message)
    this.lastError = message
    // A store that failed is opened again at the next tick.
    const store = this.store
    this.store = null
    if (store !== null) store.close().catch(() => {})
  }

  private async tick (): Promise<void> {
    if (this.closing.signal.aborted) return
    const store = await this.opened()
    const holding = await store.lease(this.holder, this.leaseMs)
    if (holding !== this.holding) this.options.log.info(`alerts: this instance ${holding ? 'evaluates the rules now' : 'no longer evaluates the rules (another instance holds the lease)'}`)
    this.holding = holding
    if (!holding) return
    const now = Date.now()
    if (now >= this.nextEvaluationMs) {
      this.nextEvaluationMs = now + this.options.rules.evaluateEveryMs
      await this.evaluate(store, now)
      this.lastEvaluatedMs = now
      this.lastError = null
    }
    await this.deliver(store)
  }

  private async evaluate (store: AlertStore, now: number): Promise<void> {
    const previous = new Map<string, AlertStateRow>()
    for (const row of await store.states()) previous.set(`${row.rule}\n${row.method} ${row.route}`, row)
    const windows = new Map<string, Promise<RouteStats[]>>()
    const read = async (windowMs: number, deployment: string | null): Promise<RouteStats[]> => {
      const key = `${windowMs} ${deployment ?? ''}`
      let lines = windows.get(key)
      if (lines === undefined) {
        lines = this.options.routeStats(now, windowMs, deployment ?? undefined).then(stats => stats.routes)
        windows.set(key, lines)
      }
      return await lines
    }
    const states: AlertStateRow[] = []
    const changes: AlertChange[] = []
    const deliveries: NewDelivery[] = []
    for (const rule of this.rules) {
      const lines = await read(rule.windowMs, rule.deployment)
      const baseline = rule.compareTo === null ? undefined : await read(rule.windowMs, rule.compareTo)
      const known = [...previous.values()].filter(row => row.rule === rule.name && (row.state === 'pending' || row.state === 'firing'))
      for (const reading of readingsOf(rule, lines, known, baseline)) {
        const before = previous.get(`${rule.name}\n${reading.method} ${reading.route}`)
        const next = step(rule, reading, before, now)
        states.push(next.row)
        if (next.changed) changes.push({ atMs: now, rule: rule.name, route: reading.route, method: reading.method, state: next.row.state, value: reading.value })
        if (next.notify === null) continue
        const body = JSON.stringify(notification(rule, reading, next.notify, next.row.sinceMs, now, this.options.rules.profilerUrl))
        for (const webhook of rule.notify) deliveries.push({ webhook, rule: rule.name, state: next.notify, createdMs: now, body })
      }
    }
    if (await store.apply(this.holder, { states, changes, deliveries })) {
      await store.prune(now - HISTORY_MAX_AGE_MS, HISTORY_MAX_ROWS)
    }
  }

  /** Starts the next attempt of each webhook that has one due and none in flight; never waits for them. */
  private async deliver (store: AlertStore): Promise<void> {
    const now = Date.now()
    for (const row of await store.nextDeliveries()) {
      if (this.inFlight.has(row.webhook) || row.nextMs > now) continue
      this.inFlight.add(row.webhook)
      this.send(store, row).catch(err => { this.failed(err) }).finally(() => {
        this.inFlight.delete(row.webhook)
        this.loop.wake()
      })
    }
  }

  private async send (store: AlertStore, row: DeliveryRow): Promise<void> {
    const webhook = this.options.rules.webhooks.get(row.webhook)
    const attempts = row.attempts + 1
    const error = webhook === undefined ? 'the webhook is no longer in the rules file' : await attempt(webhook, row.body, this.closing.signal)
    if (this.closing.signal.aborted) return
    const now = Date.now()
    let outcome: DeliveryOutcome
    if (error === null) outcome = { status: 'delivered', attempts, doneMs: now }
    else if (webhook === undefined || now + backoffMs(attempts) - row.createdMs > GIVE_UP_AFTER_MS) outcome = { status: 'failed', attempts, doneMs: now, lastError: error }
    else outcome = { status: 'pending', attempts, nextMs: now + backoffMs(attempts), lastError: error }
    if (outcome.status === 'failed') this.options.log.error(`alerts: gave up delivering "${row.rule}" (${row.state}) to webhook "${row.webhook}" after ${attempts} attempt(s): ${error ?? ''}`)
    await store.finishAttempt(row.id, outcome)
  }
}
