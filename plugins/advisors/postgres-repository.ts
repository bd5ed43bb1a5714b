import type pg from 'pg'
import { isPostgresFault } from '../../lib/postgres/faults.js'
import { inTransaction } from '../../lib/postgres/pool.js'
import { storableParams } from '../../lib/postgres/text.js'
import { databaseUnavailable } from '../../lib/sqlite/faults.js'
import { toAdvisor, type AdvisorRow, type AdvisorStore } from './store.js'
import type { Advisor, AdvisorInput } from './record.js'

const UPSERT = `
  INSERT INTO advisors (code, first_name, last_name, email, team, phone_extension, status, last_seen_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (code) DO UPDATE SET
    first_name = excluded.first_name, last_name = excluded.last_name, email = excluded.email,
    team = excluded.team, phone_extension = excluded.phone_extension, status = excluded.status,
    last_seen_at = COALESCE(excluded.last_seen_at, advisors.last_seen_at), updated_at = excluded.updated_at`

/**
 * All SQL on the advisors table, on PostgreSQL: the same answers as AdvisorRepository (SQLite).
 * `pool` gives the open pool or throws the 503 while the database cannot be opened; a query that
 * fails because the server is unreachable is the same 503. Text cannot hold NUL on PostgreSQL:
 * stored and looked up as U+FFFD (a code with NUL is then simply not found, as on SQLite).
 */
export class PostgresAdvisorRepository implements AdvisorStore {
  /** Last `last_seen_at` write per code (epoch seconds): the status poll writes at most once a second. */
  private readonly lastSeenWrites = new Map<string, number>()

  constructor (private readonly pool: () => Promise<pg.Pool>) {}

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
          await client.query(UPSERT, storableParams([a.code, a.firstName, a.lastName, a.email, a.team, a.phoneExtension, a.status, a.lastSeenAt, updatedAt]))
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
    return await this.unavailableOnFault(async () => (await (await this.pool()).query<R>(sql, storableParams(params))).rows)
  }

  private async unavailableOnFault<T> (work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (err) {
      throw isPostgresFault(err) ? databaseUnavailable(err) : err
    }
  }
}
