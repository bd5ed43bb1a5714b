import BetterSqlite3 from 'better-sqlite3'
import { queryOn } from './postgres.js'

/** The tokens of every profile a SQLite profile store holds, read from its file. */
export function storedTokens (path: string): Set<string> {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return new Set(db.prepare('SELECT token FROM profiles').pluck().all() as string[])
  } finally {
    db.close()
  }
}

/** The tokens of every profile a PostgreSQL profile store holds, read on a connection of its own. */
export async function postgresStoredTokens (url: string): Promise<Set<string>> {
  return new Set((await queryOn(url, 'SELECT token FROM profiles')).map(row => String(row.token)))
}
