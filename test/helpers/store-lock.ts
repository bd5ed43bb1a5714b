// Another connection holding up the profile store's writes, on either engine, as a real fault:
// SQLite, a write transaction (an operator's sqlite3 shell); PostgreSQL, the route statistics'
// table locked by another session (every batch writes to it, statistics-only ones included).
import BetterSqlite3 from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import type { Test } from 'tap'

export interface StoreLock {
  hold: () => Promise<void>
  release: () => Promise<void>
}

/** A lock on `app`'s profile store, released when the test ends if still held. */
export async function storeLock (t: Test, app: FastifyInstance): Promise<StoreLock> {
  const url = app.config.profilerDatabaseUrl
  if (url === null) {
    const locker = new BetterSqlite3(app.config.profilerDatabasePath)
    t.teardown(() => { if (locker.inTransaction) locker.exec('ROLLBACK'); locker.close() })
    return {
      hold: async () => { locker.exec('BEGIN IMMEDIATE') },
      release: async () => { locker.exec('ROLLBACK') }
    }
  }
  const locker = new pg.Client({ connectionString: url.replace(/\/\/[^@]*@/, '//postgres@') })
  await locker.connect()
  t.teardown(async () => { await locker.end() })
  return {
    hold: async () => {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE profile_route_stats IN ACCESS EXCLUSIVE MODE')
    },
    release: async () => { await locker.query('ROLLBACK') }
  }
}
