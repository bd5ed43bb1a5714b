import { existsSync } from 'node:fs'
import type { Database } from 'better-sqlite3'
import type { Config } from '../../../config.js'
import { newestVersion } from '../../../lib/migration-files.js'
import { isPostgresFault } from '../../../lib/postgres/faults.js'
import { withoutPassword } from '../../../lib/postgres/url.js'
import { profilerSqliteMigrationsDir, profilerPostgresMigrationsDir } from '../../../paths.js'
import type { StoredProfile } from '../profile.js'
import type { StoreReader } from './contract.js'
import { openReadOnlyDatabase, schemaVersion } from './sqlite/open-database.js'
import { SqliteReader } from './sqlite/reader.js'

/** What the command line and the MCP server read: searches, profiles and route statistics, nothing written. */
export interface ReadOnlyStore extends Pick<StoreReader, 'search' | 'find' | 'routeStats' | 'rollupPeriods'> {
  /** The newest request profile. */
  latest: () => Promise<StoredProfile | undefined>
  /** Closes the file or ends the connection pool (the process can then exit). */
  close: () => Promise<void>
}

/** The store cannot be read (missing, unreachable, not migrated, unreadable): the command line's exit code 1. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/** The variables of the service that name its store. */
type StoreConfig = Pick<Config, 'profilerDatabasePath' | 'profilerDatabaseUrl'>

/**
 * Opens the store the service's own variables name, read-only, next to the running service:
 * PostgreSQL when PROFILER_DATABASE_URL is set, else the SQLite file PROFILER_DATABASE_PATH.
 * Never creates or migrates it: a store behind the code is an error that says so.
 */
export async function openReadOnlyStore (config: StoreConfig): Promise<ReadOnlyStore> {
  const reader = config.profilerDatabaseUrl === null
    ? openSqlite(config.profilerDatabasePath)
    : await openPostgres(config.profilerDatabaseUrl)
  // A read the engine calls a fault (reader.isFault) is the store's failure, the same on both engines.
  const read = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call()
    } catch (err) {
      if (reader.isFault(err)) throw new StoreUnavailableError(`The profile store failed: ${(err as Error).message}`, { cause: err })
      throw err
    }
  }
  return {
    search: async filters => await read(async () => await reader.search(filters)),
    find: async token => await read(async () => await reader.find(token)),
    latest: async () => await read(async () => await reader.latest('request')),
    routeStats: async (nowMs, windowMs, deployment) => await read(async () => await reader.routeStats(nowMs, windowMs, deployment)),
    rollupPeriods: async range => await read(async () => await reader.rollupPeriods(range)),
    close: async () => { await reader.close() }
  }
}

/** The same message for both engines when the schema is not the one this code reads. */
function versionMismatch (where: string, version: number, expected: number): StoreUnavailableError {
  return new StoreUnavailableError(`The profile store ${where} is at version ${version}, this command reads version ${expected}: ${version < expected ? 'start the service once to migrate it' : 'update this checkout'}`)
}

/** The SQLite file, opened read-only (WAL: reading never blocks the service's writer). */
function openSqlite (path: string): StoreReader {
  if (!existsSync(path)) throw new StoreUnavailableError(`The profile store ${path} does not exist (PROFILER_DATABASE_PATH); start the service once to create it`)
  let db: Database
  try {
    db = openReadOnlyDatabase(path)
  } catch (err) {
    throw new StoreUnavailableError(`Cannot open the profile store ${path}: ${(err as Error).message}`, { cause: err })
  }
  try {
    const version = schemaVersion(db)
    const expected = newestVersion(profilerSqliteMigrationsDir)
    if (version !== expected) throw versionMismatch(path, version, expected)
    return new SqliteReader(db)
  } catch (err) {
    db.close()
    if (err instanceof StoreUnavailableError) throw err
    throw new StoreUnavailableError(`Cannot read the profile store ${path}: ${(err as Error).message}`, { cause: err })
  }
}

/** The PostgreSQL store, through the service's reader on sessions the server keeps read-only. */
async function openPostgres (url: string): Promise<StoreReader> {
  // Shown in messages: the URL without its password.
  const where = withoutPassword(url)
  const { PostgresReader } = await import('./postgres/reader.js')
  let opened: Awaited<ReturnType<typeof PostgresReader.openReadOnly>>
  try {
    opened = await PostgresReader.openReadOnly(url)
  } catch (err) {
    const verb = isPostgresFault(err) ? 'reach' : 'read'
    throw new StoreUnavailableError(`Cannot ${verb} the profile store ${where}: ${(err as Error).message}`, { cause: err })
  }
  const expected = newestVersion(profilerPostgresMigrationsDir)
  if (opened.version !== expected) {
    await opened.reader.close()
    throw versionMismatch(where, opened.version, expected)
  }
  return opened.reader
}
