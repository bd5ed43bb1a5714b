import type { Database } from 'better-sqlite3'
import fp from 'fastify-plugin'
import { migrationsDir } from '../paths.js'
import { databaseUnavailable } from './database-errors.js'
import { openSqlite } from './open-sqlite.js'

declare module 'fastify' {
  interface FastifyInstance {
    database: BusinessDatabase
    /** The open connection (throws a 503 while the database is unavailable). */
    db: Database
  }
}

const RETRY_MS = 1000
/**
 * The application database (advisors): opened and migrated at start, closed with the app.
 * A database that cannot be opened does not stop the service: requests that need it get a 503
 * naming the cause, and the next of them after a second tries to open it again.
 */
export class BusinessDatabase {
  private db: Database | null = null
  private lastError = ''
  private lastAttempt = 0
  private readonly openListeners: Array<(db: Database) => void> = []

  constructor (private readonly path: string, private readonly log: { info: (m: string) => void, error: (m: string) => void }) {}

  /** The connection, opened now if it could not be before; throws a 503 HttpError while unavailable. */
  get (): Database {
    if (this.db !== null) return this.db
    if (Date.now() - this.lastAttempt >= RETRY_MS) this.open()
    if (this.db === null) throw databaseUnavailable(new Error(this.lastError))
    return this.db
  }

  /** Runs `listener` on every newly opened connection (now, if one is open). */
  onOpen (listener: (db: Database) => void): void {
    this.openListeners.push(listener)
    if (this.db !== null) listener(this.db)
  }

  open (): void {
    this.lastAttempt = Date.now()
    const failedBefore = this.lastError !== ''
    try {
      const { db, migration } = openSqlite(this.path, migrationsDir)
      if (migration.applied.length > 0) {
        this.log.info(`Database ${this.path}: migrated from version ${migration.from} to ${migration.to} (${migration.applied.join(', ')})`)
      }
      this.db = db
      this.lastError = ''
      if (failedBefore) this.log.info(`Database ${this.path} is available again`)
      for (const listener of this.openListeners) listener(db)
    } catch (err) {
      // Logged when it starts failing, not on every retry.
      if (!failedBefore) this.log.error(`Database ${this.path} is unavailable (requests that need it answer 503): ${(err as Error).message}`)
      this.lastError = (err as Error).message
    }
  }

  close (): void {
    this.db?.close()
    this.db = null
  }
}

export default fp(async function databasePlugin (app) {
  const database = new BusinessDatabase(app.config.databasePath, {
    info: message => { app.log.info(message) },
    error: message => { app.log.error(message) }
  })
  database.open()
  app.decorate('database', database)
  app.decorate('db', { getter: () => database.get() })
  app.addHook('onClose', async () => { database.close() })
}, { name: 'database' })
