import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from 'better-sqlite3'

const MIGRATION_FILE = /^(\d{3})-[\w.-]+\.sql$/

/** A migration that could not be applied; the database stays at the previous version. */
export class MigrationError extends Error {
  constructor (readonly file: string, cause: unknown) {
    super(`Migration ${file} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'MigrationError'
  }
}

export interface MigrationResult { from: number, to: number, applied: string[] }

function listMigrations (dir: string): Array<{ version: number, file: string }> {
  const migrations = readdirSync(dir)
    .map(file => ({ file, match: MIGRATION_FILE.exec(file) }))
    .filter(entry => entry.match !== null)
    .map(entry => ({ version: Number(entry.match?.[1]), file: entry.file }))
    .sort((a, b) => a.version - b.version)
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) {
      throw new MigrationError(migrations[i]?.file ?? '', new Error('two migrations share this number'))
    }
  }
  return migrations
}

/** The version a database reaches once every migration of `dir` is applied. */
export function newestVersion (dir: string): number {
  return listMigrations(dir).at(-1)?.version ?? 0
}

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
