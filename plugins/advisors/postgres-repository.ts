import type pg from 'pg'
import { isPostgresFault } from '../../lib/postgres/faults.js'
import { inTransaction } from '../../lib/postgres/pool.js'
import { storableParams } from '../../lib/postgres/text.js'
import { databaseUnavailable } from '../../lib/sqlite/faults.js'
import { recordAsync, type StatementLog } from '../../lib/statement-log.js'
import { toAdvisor, type AdvisorRow, type AdvisorStore } from './store.js'
import type { Advisor, AdvisorInput } from './record.js'

const UPSERT = `
  INSERT INTO advisors (code, first_name, last_name, email, team, phone_extension, status, last_seen_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (code) DO UPDATE SET
    first_name = excluded.first_name, last_name = excluded.last_name, email = excluded.email,
    team = excluded.team, phone_extension = excluded.phone_extension, status = excluded.status,
    last_seen_at = COALESCE(excluded.last_seen_at, advisors.last_seen_at), updated_at = excluded.updated_at`

/** Rows returned (SELECT) or changed (INSERT, UPDATE, DELETE): what node-postgres calls rowCount. */
const changedRows = (result: pg.QueryResult): number => result.rowCount ?? result.rows.length

/**
 * All SQL on the advisors table, on PostgreSQL: the same answers as AdvisorRepository (SQLite).
 * `pool` gives the open pool or throws the 503 while the database cannot be opened; a query that
 * fails because the server is unreachable is the same 503. Text cannot hold NUL on PostgreSQL:
 * stored and looked up as U+FFFD (a code with NUL is then simply not found, as on SQLite).
 */
export class PostgresAdvisorRepository implements AdvisorStore {
  /**
   * `log`: where this view records the statements it runs (a profiled request's), or null.
   * `lastSeenWrites`: last `last_seen_at` write per code (epoch seconds), shared by every view:
   * the status poll writes at most once a second.
   */
  constructor (
    private readonly pool: () => Promise<pg.Pool>,
    private readonly log: StatementLog | null = null,
    private readonly lastSeenWrites = new Map<string, number>()
  ) {}

  /** The same repository, its statements recorded in `log`. */
  recordingInto (log: StatementLog): PostgresAdvisorRepository {
    return new PostgresAdvisorRepository(this.pool, log, this.lastSeenWrites)
  }

  async findByCode (code: string): Promise<Advisor | undefined> {
    const rows = await this.query<AdvisorRow>('SELECT * FROM advisors WHERE code = $1', [code])
    return rows[0] === undefined ? undefined : toAdvisor(rows[0])
  }

  async recordSeen (code: string, now: Date): Promise<void> {
    const second = Math.floor(now.getTime() / 1000)
    if (this.lastSeenWrites.get(code) === second) return
    await this.query('UPDATE advisors SET last_seen_at = $1 WHERE code = $2', [now.toISOString(), code])
    this.lastSeenWrites.set(code, second)
  }

  async upsertMany (advisors: AdvisorInput[], now = new Date()): Promise<number> {
    const updatedAt = now.toISOString()
    await this.unavailableOnFault(async () => {
      await inTransaction(await this.pool(), async client => {
        for (const a of advisors) {
          const params = storableParams([a.code, a.firstName, a.lastName, a.email, a.team, a.phoneExtension, a.status, a.lastSeenAt, updatedAt])
          await recordAsync(this.log, UPSERT, params, async () => await client.query(UPSERT, params), changedRows)
        }
      })
    })
    return advisors.length
  }

  async count (): Promise<number> {
    return Number((await this.query<{ n: number }>('SELECT count(*)::int AS n FROM advisors', []))[0]?.n ?? 0)
  }

  async check (): Promise<void> {
    await this.query('SELECT 1 AS ok', [])
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow> (sql: string, params: unknown[]): Promise<R[]> {
    const pool = await this.unavailableOnFault(this.pool)
    const values = storableParams(params)
    return await this.unavailableOnFault(async () => (await recordAsync(this.log, sql, values, async () => await pool.query<R>(sql, values), changedRows)).rows)
  }

  private async unavailableOnFault<T> (work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (err) {
      throw isPostgresFault(err) ? databaseUnavailable(err) : err
    }
  }
}
