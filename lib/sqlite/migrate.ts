import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from 'better-sqlite3'
import { listMigrations, MigrationError, newestVersion, type MigrationResult } from '../migration-files.js'

export { MigrationError, type MigrationResult } from '../migration-files.js'

/**
 * Applies every `NNN-*.sql` file of `dir` above the database's `PRAGMA user_version`,
 * each file and its version bump in one transaction. Two connections may migrate at once (the
 * profiler's threads): each step re-reads the version inside its write transaction.
 */
export function migrate (db: Database, dir: string): MigrationResult {
  const from = db.pragma('user_version', { simple: true }) as number
  const migrations = listMigrations(dir)
  const newest = newestVersion(dir)
  if (from > newest) {
    throw new MigrationError(`(none above ${newest})`, new Error(`database is at version ${from}, newer than this code`))
  }
  const applied: string[] = []
  for (const { version, file } of migrations) {
    if (version <= from) continue
    const sql = readFileSync(join(dir, file), 'utf8')
    let done: boolean
    try {
      done = db.transaction(() => {
        if ((db.pragma('user_version', { simple: true }) as number) >= version) return false
        db.exec(sql)
        db.pragma(`user_version = ${version}`)
        return true
      }).immediate()
    } catch (err) {
      throw new MigrationError(file, err)
    }
    if (done) applied.push(file)
  }
  return { from, to: Math.max(from, newest), applied }
}
