// The versioned-SQL migrations, the same for every engine: files named NNN-name.sql, applied in order.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const MIGRATION_FILE = /^(\d{3})-[\w.-]+\.sql$/

/** A migration that could not be applied; the database stays at the previous version. */
export class MigrationError extends Error {
  constructor (readonly file: string, cause: unknown) {
    super(`Migration ${file} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'MigrationError'
  }
}

export interface MigrationResult { from: number, to: number, applied: string[] }

/** The `NNN-name.sql` files of a folder, by version (subfolders are not read). */
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

export interface PendingMigration { version: number, file: string, sql: string }

/**
 * The migrations of `dir` above version `from`, oldest first, with their SQL; a database newer
 * than every file (a newer checkout migrated it) is refused rather than run by older code.
 */
export function pendingMigrations (dir: string, from: number): PendingMigration[] {
  const migrations = listMigrations(dir)
  const newest = migrations.at(-1)?.version ?? 0
  if (from > newest) {
    throw new MigrationError(`(none above ${newest})`, new Error(`database is at version ${from}, newer than this code`))
  }
  return migrations.filter(({ version }) => version > from).map(({ version, file }) => ({ version, file, sql: readFileSync(join(dir, file), 'utf8') }))
}
