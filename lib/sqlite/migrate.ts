import type { Database } from 'better-sqlite3'
import { MigrationError, newestVersion, pendingMigrations, type MigrationResult } from '../migration-files.js'

export { MigrationError, type MigrationResult } from '../migration-files.js'

/**
 * Applies every `NNN-*.sql` file of `dir` above the database's `PRAGMA user_version`,
 * each file and its version bump in one transaction. Two connections may migrate at once (the
 * profiler's threads): each step re-reads the version inside its write transaction.
 */
export function migrate (db: Database, dir: string): MigrationResult {
  const from = db.pragma('user_version', { simple: true }) as number
  const applied: string[] = []
  for (const { version, file, sql } of pendingMigrations(dir, from)) {
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
  return { from, to: Math.max(from, newestVersion(dir)), applied }
}
