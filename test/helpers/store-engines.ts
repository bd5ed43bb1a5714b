// The two profile store engines, for a test file that runs the same assertions on both: SQLite (a
// file in a temp folder) and PostgreSQL (one throwaway cluster per file, started at its first use,
// a database per store). Without PostgreSQL its tests are skipped with the reason (CI must have it).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { Test } from 'tap'
import type { StoreTarget } from '../../plugins/profiler/engine/contract.js'
import { postgresBinDir, queryOn, startPostgres, type PostgresCluster } from './postgres.js'
import { sqlitePanels } from './sqlite-panels.js'

/** A fresh, empty store for one test: the environment that points an app (or the command line) at it. */
type FreshStore = (t: Test) => Promise<Record<string, string>>

export interface StoreEngine {
  name: 'sqlite' | 'postgres'
  /** A store as the service's first start leaves it (PostgreSQL: a copy of a database every migration ran on). */
  fresh: FreshStore
  /** A store no migration ran on: for a test that lays out what an older release left (SQLite: the same as fresh, a file not made yet). */
  unmigrated: FreshStore
  skip: string | false
}

/** Both engines; `root` is the file's top-level test (the cluster lives until it ends). */
export function storeEngines (root: Test): StoreEngine[] {
  const sqliteFile: FreshStore = async t => {
    const dir = mkdtempSync(join(tmpdir(), 'store-engine-'))
    t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
    return { PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite') }
  }
  const sqlite: StoreEngine = { name: 'sqlite', skip: false, fresh: sqliteFile, unmigrated: sqliteFile }
  if (postgresBinDir() === null && process.env.CI !== 'true') {
    const skipped = async (): Promise<never> => { throw new Error('PostgreSQL is not installed') }
    return [sqlite, { name: 'postgres', fresh: skipped, unmigrated: skipped, skip: 'PostgreSQL is not installed (apt-get install postgresql)' }]
  }
  let cluster: Promise<PostgresCluster> | null = null
  let databases = 0
  const started = async (): Promise<PostgresCluster> => await (cluster ??= startPostgres(root))
  return [sqlite, {
    name: 'postgres',
    skip: false,
    fresh: async () => ({ PROFILER_DATABASE_URL: await (await started()).createStore(`store_${++databases}`) }),
    unmigrated: async () => ({ PROFILER_DATABASE_URL: await (await started()).createDatabase(`store_${++databases}`) })
  }]
}

/** The store a fresh store's environment points at, as the writer opens it. */
export function storeTarget (env: Record<string, string>): StoreTarget {
  if (env.PROFILER_DATABASE_URL !== undefined) return { engine: 'postgres', url: env.PROFILER_DATABASE_URL }
  if (env.PROFILER_DATABASE_PATH !== undefined) return { engine: 'sqlite', path: env.PROFILER_DATABASE_PATH }
  throw new Error('neither PROFILER_DATABASE_URL nor PROFILER_DATABASE_PATH')
}

/** Rows of a query on a store, read on a connection of their own (SQLite read-only). */
async function storeRows (env: Record<string, string>, sql: string): Promise<Array<Record<string, unknown>>> {
  const target = storeTarget(env)
  if (target.engine === 'postgres') return await queryOn(target.url, sql)
  const db = new BetterSqlite3(target.path, { readonly: true })
  try {
    return db.prepare(sql).all() as Array<Record<string, unknown>>
  } finally {
    db.close()
  }
}

/** The statistics stamps a store holds ("source seq"), sorted. */
export async function statisticsStamps (env: Record<string, string>): Promise<string[]> {
  const rows = await storeRows(env, 'SELECT source, seq FROM profile_statistics_stamps')
  return rows.map(row => `${String(row.source)} ${String(row.seq)}`).sort()
}

/** The requests a store's tallies say are missing from the statistics (profile_statistics_missing), added up. */
export async function missingInStore (env: Record<string, string>): Promise<number> {
  const rows = await storeRows(env, 'SELECT count FROM profile_statistics_missing')
  return rows.reduce((sum, row) => sum + Number(row.count), 0)
}

/** The panels' text each stored profile has, by token, as the store holds it (the engines name the data row's id apart). */
export async function storedPanels (env: Record<string, string>): Promise<Map<string, string>> {
  const target = storeTarget(env)
  if (target.engine === 'sqlite') {
    const db = new BetterSqlite3(target.path, { readonly: true })
    try {
      return new Map(sqlitePanels(db).map(row => [row.token, row.panels]))
    } finally {
      db.close()
    }
  }
  const rows = await storeRows(env, 'SELECT p.token, d.panels FROM profile_data d JOIN profiles p ON p.id = d.id')
  return new Map(rows.map(row => [String(row.token), String(row.panels)]))
}
