import type { Database } from 'better-sqlite3'
import fp from 'fastify-plugin'
import { migrationsDir } from '../paths.js'
import { databaseUnavailable, isDatabaseUnavailable } from '../lib/sqlite/faults.js'
import { openSqlite } from '../lib/sqlite/open.js'
import { Reopening } from '../lib/sqlite/reopening.js'

declare module 'fastify' {
  interface FastifyInstance {
    database: BusinessDatabase
    /** The open connection (throws a 503 while the database is unavailable). */
    db: Database
  }
}

export interface DatabaseOptions {
  /** While the database cannot be opened, the next request after this delay tries again (1 s). */
  retryDelayMs?: number
}

/**
 * The application database (advisors): opened and migrated at start, closed with the app.
 * A database that cannot be opened does not stop the service: requests that need it get a 503
 * naming the cause, and the next of them after a second tries to open it again.
 */
class BusinessDatabase {
  private readonly connection: Reopening<Database>
  private readonly openListeners: Array<(db: Database) => void> = []
  private inOutage = false

  constructor (private readonly path: string, private readonly log: { info: (m: string) => void, error: (m: string) => void }, retryDelayMs = 1000) {
    this.connection = new Reopening(() => this.openNow(), retryDelayMs, message => { this.reportOutage(message) })
  }

  /**
   * One log line per outage, whoever notices it (a failed open, a query failing with an
   * "unusable" code, the status poll's check); the requests answered 503 meanwhile log nothing.
   */
  reportOutage (message: string): void {
    if (this.inOutage) return
    this.inOutage = true
    this.log.error(`Database ${this.path} is unavailable (requests that need it answer 503): ${message}`)
  }

  /** One log line when it answers again after an outage. */
  reportRecovery (): void {
    if (!this.inOutage) return
    this.inOutage = false
    this.log.info(`Database ${this.path} is available again`)
  }

  /** The connection, opened now if it could not be before; throws a 503 HttpError while unavailable. */
  get (): Database {
    const db = this.connection.get()
    if (db === null) throw databaseUnavailable(new Error(this.connection.failure))
    return db
  }

  /** Runs `listener` on every newly opened connection (now, if one is open). */
  onOpen (listener: (db: Database) => void): void {
    this.openListeners.push(listener)
    const db = this.connection.current
    if (db !== null) listener(db)
  }

  open (): void {
    this.connection.tryOpen()
  }

  close (): void {
    this.connection.close(db => { db.close() })
  }

  private openNow (): Database {
    const { db, migration } = openSqlite(this.path, migrationsDir)
    if (migration.applied.length > 0) {
      this.log.info(`Database ${this.path}: migrated from version ${migration.from} to ${migration.to} (${migration.applied.join(', ')})`)
    }
    try {
      for (const listener of this.openListeners) listener(db)
    } catch (err) {
      db.close()
      throw err
    }
    this.reportRecovery()
    return db
  }
}

export default fp<DatabaseOptions>(async function databasePlugin (app, options) {
  const database = new BusinessDatabase(app.config.databasePath, {
    info: message => { app.log.info(message) },
    error: message => { app.log.error(message) }
  }, options.retryDelayMs)
  database.open()
  app.decorate('database', database)
  app.decorate('db', { getter: () => database.get() })
  // A query that fails because the file is unusable (locked, corrupt, I/O) starts an outage too.
  app.addHook('onError', async (_request, _reply, error) => {
    if (isDatabaseUnavailable(error)) database.reportOutage(error.message)
  })
  app.addHook('onClose', async () => { database.close() })
  // SQLite errors that mean the file is unusable now (locked, corrupt, full) are 503s, not bugs.
  app.addErrorRewording(error => isDatabaseUnavailable(error) ? databaseUnavailable(error) : undefined)
}, { name: 'database', dependencies: ['error-renderer'] })
