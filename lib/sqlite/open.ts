import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3, { type Database } from 'better-sqlite3'
import { migrate, type MigrationResult } from './migrate.js'

export interface OpenedDatabase { db: Database, migration: MigrationResult }

/**
 * Opens (creating its folder) a SQLite file in WAL mode and brings it to the newest migration.
 * `pragmas` run first, while a new file is still empty (auto_vacuum can only be chosen then); a
 * `busy_timeout` among them replaces the default of 5 s (how long a write waits for another's lock).
 */
export function openSqlite (path: string, migrationsDir: string, pragmas: string[] = []): OpenedDatabase {
  let db: Database
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    db = new BetterSqlite3(path)
  } catch (err) {
    throw new Error(`cannot open the SQLite database ${path}: ${(err as Error).message}`, { cause: err })
  }
  try {
    db.pragma('busy_timeout = 5000')
    for (const pragma of pragmas) db.pragma(pragma)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    return { db, migration: migrate(db, migrationsDir) }
  } catch (err) {
    db.close()
    throw err
  }
}
