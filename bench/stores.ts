// The two store engines as the benchmark sees them: seeded stores kept between runs, a writable
// copy for the load runs, an in-process searcher, the environment that points a server at each.
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import type pg from 'pg'
import { createPool } from '../lib/postgres/pool.js'
import { startThrowawayCluster, type ThrowawayCluster } from '../test/helpers/throwaway-cluster.js'
import type { SearchFilters } from '../plugins/profiler/profile.js'
import { openProfileDatabase } from '../plugins/profiler/engine/sqlite/open-database.js'
import { PostgresReader } from '../plugins/profiler/engine/postgres/reader.js'
import { SqliteProfileSearch } from '../plugins/profiler/engine/sqlite/profile-search.js'
import { storeBytes } from '../plugins/profiler/engine/postgres/partitions.js'
import { PostgresWriter } from '../plugins/profiler/engine/postgres/writer.js'
import { SqliteProfileWriter } from '../plugins/profiler/engine/sqlite/profile-writer.js'
import { seedProfiles, type SeedOptions } from './seed.js'
import { clusterCpuMs } from './cluster-cpu.js'

const UNBOUNDED_LIMITS = { maxProfiles: 1e12, maxAgeMs: 1e13, maxBytes: 1e15, statsMaxAgeMs: 1e13 }

/** A server's retention bounds that no benchmark run reaches: what it measures is never pruning. */
export const UNBOUNDED_RETENTION_ENV = { PROFILER_MAX_PROFILES: '100000000', PROFILER_MAX_BYTES: '64GiB', PROFILER_MAX_AGE: '3650d' }

interface Searcher {
  search: (filters: SearchFilters) => unknown
  routeStats: (nowMs: number, windowMs: number) => unknown
  close: () => Promise<void>
}
/**
 * A store a server can run on; `profiles` counts its profiles while the server writes (read without
 * migrating: the store may be another revision's), `remove` deletes it.
 */
export interface RunStore { env: Record<string, string>, profiles: () => Promise<number>, remove: () => Promise<void> }

export interface BenchStore {
  name: 'sqlite' | 'postgres'
  /** A store of `count` seeded profiles, kept between runs; writesPerSecond is null when it was reused. */
  seeded: (count: number, options: SeedOptions) => Promise<{ env: Record<string, string>, writesPerSecond: number | null }>
  /** Writes `count` more profiles into a copy of the seeded store of `size`; profiles per second. */
  writeRateInto: (size: number, count: number, options: SeedOptions) => Promise<number>
  /** Bytes the seeded store of `size` takes. */
  bytes: (size: number) => Promise<number>
  searcher: (size: number) => Promise<Searcher>
  /** A writable copy of the seeded store of `size`, or an empty store when size is 0. */
  runStore: (size: number) => Promise<RunStore>
  /** The CPU the database server used so far, in ms (0 for SQLite: it runs in the service's threads). */
  serverCpuMs: () => number
  close: () => Promise<void>
}

function removeSqlite (path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
}

export function sqliteStore (dataDir: string): BenchStore {
  // v2: route patterns (/api/orders/:id), not concrete paths: stores seeded before are seeded again.
  const pathOf = (count: number): string => join(dataDir, `store-${count}-v2.sqlite`)
  return {
    name: 'sqlite',
    seeded: async (count, options) => {
      const path = pathOf(count)
      if (existsSync(path)) {
        const { db } = openProfileDatabase(path)
        const search = new SqliteProfileSearch(db)
        const stored = search.count()
        // A store seeded before the route statistics existed has no rollups: seeded again.
        const rolledUp = search.routeStats(options.endMs ?? Date.now(), 7 * 86_400_000).routes.length > 0
        db.close()
        // At least: the search section's server records its readiness probes into the seeded store.
        if (stored >= count && rolledUp) return { env: { PROFILER_DATABASE_PATH: path }, writesPerSecond: null }
      }
      removeSqlite(path)
      const { db } = openProfileDatabase(path)
      const writesPerSecond = await seedProfiles(new SqliteProfileWriter(db), count, options)
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
      return { env: { PROFILER_DATABASE_PATH: path }, writesPerSecond }
    },
    writeRateInto: async (size, count, options) => {
      const copy = join(dataDir, 'store-write-test.sqlite')
      removeSqlite(copy)
      copyFileSync(pathOf(size), copy)
      const { db } = openProfileDatabase(copy)
      try {
        return await seedProfiles(new SqliteProfileWriter(db), count, options)
      } finally {
        db.close()
        removeSqlite(copy)
      }
    },
    bytes: async size => statSync(pathOf(size)).size,
    searcher: async size => {
      const { db } = openProfileDatabase(pathOf(size))
      const search = new SqliteProfileSearch(db)
      return { search: filters => search.search(filters), routeStats: (nowMs, windowMs) => search.routeStats(nowMs, windowMs), close: async () => { db.close() } }
    },
    runStore: async size => {
      const path = join(dataDir, size === 0 ? 'store-empty.sqlite' : 'store-run.sqlite')
      removeSqlite(path)
      if (size > 0) copyFileSync(pathOf(size), path)
      const profiles = async (): Promise<number> => {
        if (!existsSync(path)) return 0 // the profiler is off
        const db = new Database(path, { readonly: true, fileMustExist: true })
        try {
          return (db.prepare('SELECT count(*) AS n FROM profiles').get() as { n: number }).n
        } finally {
          db.close()
        }
      }
      return { env: { PROFILER_DATABASE_PATH: path }, profiles, remove: async () => { removeSqlite(path) } }
    },
    serverCpuMs: () => 0,
    close: async () => {}
  }
}

/** A cluster of its own under `dataDir`/postgres (kept between runs, like the seeded SQLite files). */
export async function postgresStore (dataDir: string): Promise<BenchStore> {
  const cluster: ThrowawayCluster = await startThrowawayCluster(join(dataDir, 'postgres'), { keep: true })
  const nameOf = (count: number): string => `store_${count}`
  const exists = async (name: string): Promise<boolean> => (await cluster.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).length > 0
  const drop = async (name: string): Promise<void> => { await cluster.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
  const withPool = async <T>(name: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> => {
    const pool = createPool(cluster.urlOf(name), { max: 1, applicationName: 'bench' })
    try {
      return await work(pool)
    } finally {
      await pool.end()
    }
  }
  const seed = async (name: string, count: number, options: SeedOptions): Promise<number> => {
    const writer = await PostgresWriter.open({ engine: 'postgres', url: cluster.urlOf(name) }, 'bench', UNBOUNDED_LIMITS, 3_600_000,
      { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
    try {
      return await seedProfiles(writer, count, options)
    } finally {
      await writer.close()
    }
  }
  const countOf = async (name: string): Promise<number> =>
    await withPool(name, async pool => Number((await pool.query<{ n: number }>('SELECT count(*)::bigint AS n FROM profiles')).rows[0]?.n ?? 0))
  return {
    name: 'postgres',
    seeded: async (count, options) => {
      const name = nameOf(count)
      const env = { PROFILER_DATABASE_URL: cluster.urlOf(name) }
      // A store seeded before the route statistics existed has no rollups: seeded again.
      const rolledUp = async (): Promise<boolean> => await withPool(name, async pool => (await pool.query('SELECT 1 FROM profile_route_stats LIMIT 1')).rows.length > 0).catch(() => false)
      if (await exists(name) && await countOf(name).catch(() => -1) >= count && await rolledUp()) return { env, writesPerSecond: null }
      await drop(name)
      await cluster.createDatabase(name)
      const writesPerSecond = await seed(name, count, options)
      await withPool(name, async pool => { await pool.query('VACUUM ANALYZE') })
      return { env, writesPerSecond }
    },
    writeRateInto: async (size, count, options) => {
      await drop('store_write_test')
      await cluster.query(`CREATE DATABASE store_write_test TEMPLATE ${nameOf(size)}`)
      try {
        return await seed('store_write_test', count, options)
      } finally {
        await drop('store_write_test')
      }
    },
    bytes: async size => await withPool(nameOf(size), async pool => await storeBytes(pool)),
    searcher: async size => {
      const reader = await PostgresReader.open({ engine: 'postgres', url: cluster.urlOf(nameOf(size)) }, () => {})
      return { search: async filters => await reader.search(filters), routeStats: async (nowMs, windowMs) => await reader.routeStats(nowMs, windowMs), close: async () => { await reader.close() } }
    },
    runStore: async size => {
      const name = size === 0 ? 'store_empty' : 'store_run'
      await drop(name)
      if (size > 0) await cluster.query(`CREATE DATABASE ${name} TEMPLATE ${nameOf(size)}`)
      else await cluster.createDatabase(name)
      // No table when the profiler is off: nothing migrated the database.
      const profiles = async (): Promise<number> => await withPool(name, async pool =>
        (await pool.query<{ t: string | null }>("SELECT to_regclass('profiles') AS t")).rows[0]?.t === null ? 0 : Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM profiles')).rows[0]?.n ?? 0))
      return { env: { PROFILER_DATABASE_URL: cluster.urlOf(name) }, profiles, remove: async () => { await drop(name) } }
    },
    serverCpuMs: () => clusterCpuMs(join(dataDir, 'postgres', 'data')),
    close: async () => { await cluster.remove() }
  }
}
