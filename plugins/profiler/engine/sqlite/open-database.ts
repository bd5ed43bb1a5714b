import BetterSqlite3, { type Database } from 'better-sqlite3'
import { profilerSqliteMigrationsDir } from '../../../../paths.js'
import type { MigrationResult } from '../../../../lib/sqlite/migrate.js'
import { openSqlite } from '../../../../lib/sqlite/open.js'

/**
 * Opens the profile store's SQLite file, migrated. Incremental auto-vacuum (chosen while the file
 * is new) lets pruning give pages back; the WAL file is cut back to 16 MiB after checkpoints.
 */
export function openProfileDatabase (path: string, busyTimeoutMs = 5000): { db: Database, migration: MigrationResult } {
  const opened = openSqlite(path, profilerSqliteMigrationsDir, [`busy_timeout = ${busyTimeoutMs}`, 'auto_vacuum = INCREMENTAL'])
  opened.db.pragma(`journal_size_limit = ${16 * 1024 * 1024}`)
  return opened
}

/** Opens an existing file read-only, never migrated (the command line, next to the running service). */
export function openReadOnlyDatabase (path: string): Database {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 2000')
  return db
}

/** The schema version the file's migrations reached. */
export function schemaVersion (db: Database): number {
  return db.pragma('user_version', { simple: true }) as number
}
