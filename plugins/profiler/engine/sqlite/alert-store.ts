// The alerts' tables on SQLite (migration 014), on a connection of their own on the main thread:
// an evaluation writes a handful of rows in one short transaction, every few seconds at most.
import type { Database } from 'better-sqlite3'
import { LEASE_NAME, type AlertChange, type AlertHistory, type AlertStateRow, type AlertStore, type AlertWrite, type DeliveryOutcome, type DeliveryRow } from '../alert-store.js'
import { openProfileDatabase, openReadOnlyDatabase } from './open-database.js'

const STATE_COLUMNS = 'rule, route, method, state, since_ms AS sinceMs, value, count, evaluated_ms AS evaluatedMs, notified_ms AS notifiedMs'
const CHANGE_COLUMNS = 'at_ms AS atMs, rule, route, method, state, value'
const DELIVERY_COLUMNS = 'id, webhook, rule, state, created_ms AS createdMs, body, status, attempts, next_ms AS nextMs, done_ms AS doneMs, last_error AS lastError'

export class SqliteAlertStore implements AlertStore {
  private constructor (private readonly db: Database) {}

  /** Opens (and migrates) the store's file; busy for at most `busyTimeoutMs` behind the writer's transaction. */
  static open (path: string, busyTimeoutMs = 1000): SqliteAlertStore {
    return new SqliteAlertStore(openProfileDatabase(path, busyTimeoutMs).db)
  }

  static openReadOnly (path: string): SqliteAlertStore {
    return new SqliteAlertStore(openReadOnlyDatabase(path))
  }

  async states (): Promise<AlertStateRow[]> {
    return this.db.prepare(`SELECT ${STATE_COLUMNS} FROM profiler_alert_states ORDER BY rule, route, method`).all() as AlertStateRow[]
  }

  async history (limit: number): Promise<AlertHistory> {
    return {
      changes: this.db.prepare(`SELECT ${CHANGE_COLUMNS} FROM profiler_alert_changes ORDER BY id DESC LIMIT ?`).all(limit) as AlertChange[],
      deliveries: this.db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM profiler_alert_deliveries ORDER BY id DESC LIMIT ?`).all(limit) as DeliveryRow[]
    }
  }

  async lease (holder: string, ttlMs: number): Promise<boolean> {
    const now = Date.now()
    this.db.prepare(`INSERT INTO profiler_alert_lease (name, holder, expires_ms) VALUES (?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
      WHERE profiler_alert_lease.holder = excluded.holder OR profiler_alert_lease.expires_ms < ?`).run(LEASE_NAME, holder, now + ttlMs, now)
    return this.holds(holder)
  }

  async release (holder: string): Promise<void> {
    this.db.prepare('DELETE FROM profiler_alert_lease WHERE name = ? AND holder = ?').run(LEASE_NAME, holder)
  }

  async apply (holder: string, write: AlertWrite): Promise<boolean> {
    const upsert = this.db.prepare(`INSERT INTO profiler_alert_states (rule, route, method, state, since_ms, value, count, evaluated_ms, notified_ms)
      VALUES (@rule, @route, @method, @state, @sinceMs, @value, @count, @evaluatedMs, @notifiedMs)
      ON CONFLICT (rule, route, method) DO UPDATE SET state = excluded.state, since_ms = excluded.since_ms, value = excluded.value,
        count = excluded.count, evaluated_ms = excluded.evaluated_ms, notified_ms = excluded.notified_ms`)
    const change = this.db.prepare('INSERT INTO profiler_alert_changes (at_ms, rule, route, method, state, value) VALUES (@atMs, @rule, @route, @method, @state, @value)')
    const delivery = this.db.prepare(`INSERT INTO profiler_alert_deliveries (webhook, rule, state, created_ms, body, status, attempts, next_ms)
      VALUES (@webhook, @rule, @state, @createdMs, @body, 'pending', 0, @createdMs)`)
    return this.db.transaction(() => {
      if (!this.holds(holder)) return false
      for (const row of write.states) upsert.run(row)
      for (const row of write.changes) change.run(row)
      for (const row of write.deliveries) delivery.run(row)
      return true
    }).immediate()
  }

  async nextDeliveries (): Promise<DeliveryRow[]> {
    return this.db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM profiler_alert_deliveries WHERE id IN
      (SELECT min(id) FROM profiler_alert_deliveries WHERE status = 'pending' GROUP BY webhook)`).all() as DeliveryRow[]
  }

  async finishAttempt (id: number, outcome: DeliveryOutcome): Promise<void> {
    this.db.prepare('UPDATE profiler_alert_deliveries SET status = @status, attempts = @attempts, next_ms = coalesce(@nextMs, next_ms), done_ms = @doneMs, last_error = @lastError WHERE id = @id')
      .run({ id, status: outcome.status, attempts: outcome.attempts, nextMs: 'nextMs' in outcome ? outcome.nextMs : null, doneMs: 'doneMs' in outcome ? outcome.doneMs : null, lastError: 'lastError' in outcome ? outcome.lastError : null })
  }

  async prune (beforeMs: number, keep: number): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM profiler_alert_changes WHERE at_ms < ? OR id <= (SELECT id FROM profiler_alert_changes ORDER BY id DESC LIMIT 1 OFFSET ?)').run(beforeMs, keep)
      this.db.prepare(`DELETE FROM profiler_alert_deliveries WHERE status <> 'pending'
        AND (created_ms < ? OR id <= (SELECT id FROM profiler_alert_deliveries ORDER BY id DESC LIMIT 1 OFFSET ?))`).run(beforeMs, keep)
    })()
  }

  async close (): Promise<void> {
    this.db.close()
  }

  private holds (holder: string): boolean {
    const row = this.db.prepare('SELECT holder, expires_ms AS expiresMs FROM profiler_alert_lease WHERE name = ?').get(LEASE_NAME) as { holder: string, expiresMs: number } | undefined
    return row !== undefined && row.holder === holder && row.expiresMs >= Date.now()
  }
}
