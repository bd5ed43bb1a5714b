// The alerts' tables on PostgreSQL (migration 015), on a small pool of their own. The lease is
// timed by the server's clock, so that instances on hosts whose clocks differ agree on it.
import type pg from 'pg'
import { migratePostgres } from '../../../../lib/postgres/migrate.js'
import { createPool, inTransaction } from '../../../../lib/postgres/pool.js'
import { profilerPostgresMigrationsDir } from '../../../../paths.js'
import { PROFILER_MIGRATIONS_TABLE } from './writer.js'
import { LEASE_NAME, type AlertChange, type AlertHistory, type AlertStateRow, type AlertStore, type AlertWrite, type DeliveryOutcome, type DeliveryRow } from '../alert-store.js'

const STATE_COLUMNS = 'rule, route, method, state, since_ms AS "sinceMs", value, count, evaluated_ms AS "evaluatedMs", notified_ms AS "notifiedMs"'
const CHANGE_COLUMNS = 'at_ms AS "atMs", rule, route, method, state, value'
const DELIVERY_COLUMNS = 'id, webhook, rule, state, created_ms AS "createdMs", body, status, attempts, next_ms AS "nextMs", done_ms AS "doneMs", last_error AS "lastError"'
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

export class PostgresAlertStore implements AlertStore {
  private constructor (private readonly pool: pg.Pool) {}

  static async open (url: string): Promise<PostgresAlertStore> {
    const pool = createPool(url, { max: 2, applicationName: 'profiler alerts', statementTimeoutMs: 10_000 })
    try {
      await migratePostgres(pool, profilerPostgresMigrationsDir, PROFILER_MIGRATIONS_TABLE)
      return new PostgresAlertStore(pool)
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
  }

  static openReadOnly (url: string): PostgresAlertStore {
    return new PostgresAlertStore(createPool(url, { max: 1, applicationName: 'profiler alerts (command line)', readOnly: true }))
  }

  async states (): Promise<AlertStateRow[]> {
    return (await this.pool.query<AlertStateRow>(`SELECT ${STATE_COLUMNS} FROM profiler_alert_states ORDER BY rule, route, method`)).rows
  }

  async history (limit: number): Promise<AlertHistory> {
    const changes = (await this.pool.query<AlertChange>(`SELECT ${CHANGE_COLUMNS} FROM profiler_alert_changes ORDER BY id DESC LIMIT $1`, [limit])).rows
    const deliveries = (await this.pool.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM profiler_alert_deliveries ORDER BY id DESC LIMIT $1`, [limit])).rows
    return { changes, deliveries }
  }

  async lease (holder: string, ttlMs: number): Promise<boolean> {
    const result = await this.pool.query<{ holder: string }>(`INSERT INTO profiler_alert_lease AS l (name, holder, expires_ms) VALUES ($1, $2, ${NOW_MS} + $3)
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
      WHERE l.holder = excluded.holder OR l.expires_ms < ${NOW_MS}
      RETURNING holder`, [LEASE_NAME, holder, ttlMs])
    return result.rows[0]?.holder === holder
  }

  async release (holder: string): Promise<void> {
    await this.pool.query('DELETE FROM profiler_alert_lease WHERE name = $1 AND holder = $2', [LEASE_NAME, holder])
  }

  async apply (holder: string, write: AlertWrite): Promise<boolean> {
    return await inTransaction(this.pool, async client => {
      // Holding the lease row locked until commit: no other instance takes it over in between.
      const lease = await client.query(`SELECT 1 FROM profiler_alert_lease WHERE name = $1 AND holder = $2 AND expires_ms >= ${NOW_MS} FOR UPDATE`, [LEASE_NAME, holder])
      if (lease.rowCount === 0) return false
      for (const row of write.states) {
        await client.query(`INSERT INTO profiler_alert_states (rule, route, method, state, since_ms, value, count, evaluated_ms, notified_ms)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
          ON CONFLICT (rule, route, method) DO UPDATE SET state = excluded.state, since_ms = excluded.since_ms, value = excluded.value,
            count = excluded.count, evaluated_ms = excluded.evaluated_ms, notified_ms = excluded.notified_ms`,
        [row.rule, row.route, row.method, row.state, row.sinceMs, row.value, row.count, row.evaluatedMs, row.notifiedMs])
      }
      for (const row of write.changes) {
        await client.query('INSERT INTO profiler_alert_changes (at_ms, rule, route, method, state, value) VALUES ($1, $2, $3, $4, $5, $6)', [row.atMs, row.rule, row.route, row.method, row.state, row.value])
      }
      for (const row of write.deliveries) {
        await client.query(`INSERT INTO profiler_alert_deliveries (webhook, rule, state, created_ms, body, status, attempts, next_ms)
          VALUES ($1, $2, $3, $4, $5, 'pending', 0, $4)`, [row.webhook, row.rule, row.state, row.createdMs, row.body])
      }
      return true
    })
  }

  async nextDeliveries (): Promise<DeliveryRow[]> {
    return (await this.pool.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM profiler_alert_deliveries WHERE id IN
      (SELECT min(id) FROM profiler_alert_deliveries WHERE status = 'pending' GROUP BY webhook) ORDER BY id`)).rows
  }

  async finishAttempt (id: number, outcome: DeliveryOutcome): Promise<void> {
    await this.pool.query('UPDATE profiler_alert_deliveries SET status = $2, attempts = $3, next_ms = coalesce($4, next_ms), done_ms = $5, last_error = $6 WHERE id = $1',
      [id, outcome.status, outcome.attempts, 'nextMs' in outcome ? outcome.nextMs : null, 'doneMs' in outcome ? outcome.doneMs : null, 'lastError' in outcome ? outcome.lastError : null])
  }

  async prune (beforeMs: number, keep: number): Promise<void> {
    await this.pool.query('DELETE FROM profiler_alert_changes WHERE at_ms < $1 OR id <= (SELECT id FROM profiler_alert_changes ORDER BY id DESC LIMIT 1 OFFSET $2)', [beforeMs, keep])
    await this.pool.query(`DELETE FROM profiler_alert_deliveries WHERE status <> 'pending'
      AND (created_ms < $1 OR id <= (SELECT id FROM profiler_alert_deliveries ORDER BY id DESC LIMIT 1 OFFSET $2))`, [beforeMs, keep])
  }

  async close (): Promise<void> {
    await this.pool.end()
  }
}
