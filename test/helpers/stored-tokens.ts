import BetterSqlite3 from 'better-sqlite3'

/** The tokens of every profile a SQLite profile store holds, read from its file. */
export function storedTokens (path: string): Set<string> {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return new Set(db.prepare('SELECT token FROM profiles').pluck().all() as string[])
  } finally {
    db.close()
  }
}
