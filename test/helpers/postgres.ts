// A throwaway PostgreSQL cluster for one test file (throwaway-cluster.ts), stopped
// and removed at teardown; tests that need one skip with a reason when PostgreSQL is absent.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { migratePostgres } from '../../lib/postgres/migrate.js'
import { createPool } from '../../lib/postgres/pool.js'
import { profilerPostgresMigrationsDir } from '../../paths.js'
import { PROFILER_MIGRATIONS_TABLE } from '../../plugins/profiler/engine/postgres/writer.js'
import { postgresBinDir, startThrowawayCluster, type ThrowawayCluster } from './throwaway-cluster.js'

export { postgresBinDir }
export interface PostgresCluster extends ThrowawayCluster {
  /**
   * A new database holding an empty profile store, as the service's first start leaves it (every
   * migration applied); resolves with its URL. A copy of the template's migrated database: ~28 ms
   * of the server's CPU and 2 ms of the test's, against ~80 ms and ~28 ms to run the migrations.
   */
  createStore: (name: string) => Promise<string>
}

/** The template's database that holds the migrated profile store (nothing connects to it: CREATE DATABASE copies it). */
const MIGRATED_STORE = 'profile_store_migrated'

/**
 * A digest of the profile store's PostgreSQL migrations (names and SQL) and of migratePostgres's
 * code: a change to either makes a new template (outside npm test's runner the temp folder stays).
 */
function migrationsDigest (): string {
  const hash = createHash('sha256').update(migratePostgres.toString()).update(PROFILER_MIGRATIONS_TABLE)
  for (const file of readdirSync(profilerPostgresMigrationsDir).sort()) {
    hash.update(file).update('\0').update(readFileSync(join(profilerPostgresMigrationsDir, file))).update('\0')
  }
  return hash.digest('hex').slice(0, 12)
}

const run = promisify(execFile)

/**
 * Skips the whole test file (with the reason) when PostgreSQL is not installed; under CI=true a
 * missing PostgreSQL is an error instead (.ci/run installs it). Returns whether the tests can run.
 */
export function needsPostgres (t: Test): boolean {
  if (postgresBinDir() !== null) return true
  if (process.env.CI === 'true') throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): CI must run these tests')
  t.plan(0, 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)')
  return false
}

/**
 * A cleanly stopped cluster to copy, made once per temp folder, PostgreSQL version and set of the
 * profile store's migrations (once per machine, or once per run of npm test's runner, whose temp
 * folder is its own: initdb takes seconds, a copy milliseconds). Its databases are initdb's and
 * MIGRATED_STORE, migrated by the service's own code. Made in a folder of its own, then renamed
 * into place: a test file never sees half of one, and when two make it at once the first rename wins.
 */
async function templateDataDir (): Promise<string> {
  const template = join(tmpdir(), `profiled-api-pg-template-${basename(dirname(postgresBinDir() ?? 'none'))}-${migrationsDigest()}`)
  if (existsSync(join(template, 'data', 'PG_VERSION'))) return join(template, 'data')
  const building = mkdtempSync(join(tmpdir(), 'pg-template-'))
  const cluster = await startThrowawayCluster(building, { keep: true })
  try {
    const pool = createPool(await cluster.createDatabase(MIGRATED_STORE), { max: 1, applicationName: 'test template' })
    try {
      await migratePostgres(pool, profilerPostgresMigrationsDir, PROFILER_MIGRATIONS_TABLE)
    } finally {
      await pool.end()
    }
  } finally {
    await cluster.remove()
  }
  try {
    renameSync(building, template)
  } catch {
    rmSync(building, { recursive: true, force: true }) // another test file's came first
  }
  return join(template, 'data')
}

/** Starts a cluster for this test file, a copy of the template (owners and modes kept: cp -a). */
export async function startPostgres (t: Test): Promise<PostgresCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'))
  await run('cp', ['-a', await templateDataDir(), join(dir, 'data')])
  const cluster = await startThrowawayCluster(dir)
  t.teardown(async () => { await cluster.remove() })
  return { ...cluster, createStore: async name => await cluster.createDatabase(name, MIGRATED_STORE) }
}

/** The bytes of every table of the current schema with its indexes and TOAST (`bytes`): the store as the soak and the byte tests measure it. */
export const SCHEMA_BYTES_SQL = `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`

/** Rows of one query on its own connection (to look at what the service stored). */
export async function queryOn (url: string, sql: string, params: unknown[] = []): Promise<Array<Record<string, any>>> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, params)).rows
  } finally {
    await client.end()
  }
}

export interface StatementCounts {
  /** Forgets the counts so far (every database of the cluster). */
  reset: () => Promise<void>
  /** Each statement `database` ran since the last reset (normalised: parameters as $n), with its calls. */
  read: () => Promise<Array<{ query: string, calls: number }>>
}

/**
 * Turns pg_stat_statements on in this cluster (it must be preloaded: the cluster restarts), so that a
 * test can count the statements the service runs in `database`; a call is counted as it ends.
 */
export async function countStatements (cluster: PostgresCluster, database: string): Promise<StatementCounts> {
  await cluster.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
  await cluster.stop()
  await cluster.start()
  await cluster.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  return {
    reset: async () => { await cluster.query('SELECT pg_stat_statements_reset()') },
    read: async () => (await cluster.query<{ query: string, calls: string }>(`SELECT s.query, s.calls FROM pg_stat_statements s
      JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`, [database])).map(row => ({ query: row.query, calls: Number(row.calls) }))
  }
}
