import type pg from 'pg'
import { MigrationError, newestVersion, pendingMigrations, type MigrationResult } from '../migration-files.js'
import { inTransaction } from './pool.js'

/** The advisory lock that serialises migrations of one database (any instance, any thread). */
const MIGRATION_LOCK = 0x6d696772

/** Undefined table: the migrations table of a database never migrated. */
const UNDEFINED_TABLE = '42P01'

function checkedTable (table: string): string {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`)
  return table
}

/** The version the database's migrations `table` records; 0 when the table does not exist (never migrated). */
export async function postgresSchemaVersion (client: pg.PoolClient | pg.Pool, table = 'schema_migrations'): Promise<number> {
  try {
    return Number((await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${checkedTable(table)}`)).rows[0]?.v ?? 0)
  } catch (err) {
    if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return 0
    throw err
  }
}

/**
 * Applies every `NNN-*.sql` file of `dir` that the database's `table` (one per migration folder:
 * the profiler and the app may share a database) does not list, each file and its row in one transaction. Several instances (and each instance's reader
 * and writer) may start at once: an advisory lock makes them take turns, and each re-reads the
 * version under the lock.
 */
export async function migratePostgres (pool: pg.Pool, dir: string, table = 'schema_migrations'): Promise<MigrationResult> {
  await pool.query(`CREATE TABLE IF NOT EXISTS ${checkedTable(table)} (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`).catch(async (err: Error & { code?: string }) => {
    // Two instances creating it at the same moment: one of them loses the race, harmlessly.
    if (err.code !== '23505' && err.code !== '42P07' && err.code !== '42710') throw err
  })
  const current = async (client: pg.PoolClient | pg.Pool): Promise<number> => await postgresSchemaVersion(client, table)
  const from = await current(pool)
  const applied: string[] = []
  for (const { version, file, sql } of pendingMigrations(dir, from)) {
    let done: boolean
    try {
      done = await inTransaction(pool, async client => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
        if (await current(client) >= version) return false
        await client.query(sql)
        await client.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [version, file])
        return true
      })
    } catch (err) {
      throw new MigrationError(file, err)
    }
    if (done) applied.push(file)
  }
  return { from, to: Math.max(from, newestVersion(dir)), applied }
}
