import { existsSync } from 'node:fs'
import BetterSqlite3, { type Database } from 'better-sqlite3'
import { newestVersion } from '../../../lib/sqlite/migrate.js'
import { profilerMigrationsDir } from '../../../paths.js'
import type { ProfileSource } from '../pages/profile-lookup.js'
import type { ProfileSummary, SearchFilters } from '../profile.js'
import { ProfileSearch } from './reader.js'

/** What the command line and the MCP server read: searches and profiles, nothing written. */
export interface ProfileReader extends ProfileSource {
  /** Where the profiles come from, for messages. */
  readonly location: string
  search: (filters: SearchFilters) => ProfileSummary[]
  close: () => void
}

/** The store cannot be read (missing, not migrated, unreadable): the command line's exit code 1. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/**
 * Opens the service's SQLite store read-only, next to the running service (WAL: reading never
 * blocks its writer). Never creates or migrates it: a store behind the code is an error that says so.
 */
export function openReadOnlyStore (path: string): ProfileReader {
  if (!existsSync(path)) throw new StoreUnavailableError(`The profile store ${path} does not exist (PROFILER_DATABASE_PATH); start the service once to create it`)
  let db: Database
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 2000')
  } catch (err) {
    throw new StoreUnavailableError(`Cannot open the profile store ${path}: ${(err as Error).message}`, { cause: err })
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number
    const expected = newestVersion(profilerMigrationsDir)
    if (version !== expected) {
      throw new StoreUnavailableError(`The profile store ${path} is at version ${version}, this command reads version ${expected}: ${version < expected ? 'start the service once to migrate it' : 'update this checkout'}`)
    }
    const search = new ProfileSearch(db)
    return {
      location: path,
      search: filters => search.search(filters),
      find: token => search.find(token),
      latest: () => search.latest(),
      close: () => { db.close() }
    }
  } catch (err) {
    db.close()
    if (err instanceof StoreUnavailableError) throw err
    throw new StoreUnavailableError(`Cannot read the profile store ${path}: ${(err as Error).message}`, { cause: err })
  }
}
