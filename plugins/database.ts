import type { Database } from 'better-sqlite3'
import fp from 'fastify-plugin'
import type pg from 'pg'
import { AsyncReopening, Reopening } from '../lib/reopening.js'
import { isPostgresFault } from '../lib/postgres/faults.js'
import { withoutPassword } from '../lib/postgres/url.js'
import { appSqliteMigrationsDir, appPostgresMigrationsDir } from '../paths.js'
import { databaseUnavailable, isDatabaseUnavailable } from '../lib/sqlite/faults.js'
import { openSqlite } from '../lib/sqlite/open.js'
import type { StatementLog } from '../lib/statement-log.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The advisors' SQLite database (unused, never opened, when DATABASE_URL is set). */
    database: BusinessDatabase
    /** The advisors' PostgreSQL database when DATABASE_URL is set, else null. */
    postgresDatabase: PostgresBusinessDatabase | null
    /** The outage log of whichever advisors' database is configured. */
    databaseOutages: DatabaseOutages
    /** The open connection (throws a 503 while the database is unavailable). */
    db: Database
  }
  interface FastifyRequest {
    /** Where the statements this request runs on the advisors' database are recorded (the profiler sets it), or null. */
    databaseStatements: StatementLog | null
  }
}

export interface DatabaseOptions {
  /** While the database cannot be opened, the next request after this delay tries again (1 s). */
  retryDelayMs?: number
}

type Log = { info: (m: string) => void, error: (m: string) => void }

/**
 * One log line per outage, whoever notices it (a failed open, a query failing with an
 * "unusable" code, the status poll's check); the requests answered 503 meanwhile log nothing.
 * And one line when it answers again. Shared by both engines.
 */
class DatabaseOutages {
  private inOutage = false

  constructor (protected readonly where: string, protected readonly log: Log) {}

  reportOutage (message: string): void {
    if (this.inOutage) return
    this.inOutage = true
    this.log.error(`Database ${this.where} is unavailable (requests that need it answer 503): ${message}`)
  }

  reportRecovery (): void {
    if (!this.inOutage) return
    this.inOutage = false
    this.log.info(`Database ${this.where} is available again`)
  }
}

/**
 * The application database (advisors): opened and migrated at start, closed with the app.
 * A database that cannot be opened does not stop the service: requests that need it get a 503
 * naming the cause, and the next of them after a second tries to open it again.
 */
class BusinessDatabase extends DatabaseOutages {
  private readonly connection: Reopening<Database>
  private readonly openListeners: Array<(db: Database) => void> = []

  constructor (private readonly path: string, log: Log, retryDelayMs = 1000) {
    super(path, log)
    this.connection = new Reopening(() => this.openNow(), retryDelayMs, message => { this.reportOutage(message) })
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
    const { db, migration } = openSqlite(this.path, appSqliteMigrationsDir)
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

/**
 * The application database on PostgreSQL (DATABASE_URL): a pool, migrated on first open. While
 * it cannot be opened, requests that need it get the same 503 as with SQLite, and the next of them
 * after the retry delay tries again; a server that goes away later is a 503 per query (the pool reconnects).
 */
class PostgresBusinessDatabase extends DatabaseOutages {
  private readonly connection: AsyncReopening<pg.Pool>
  private readonly openListeners: Array<(pool: pg.Pool) => Promise<void>> = []
  constructor (private readonly url: string, log: Log, retryDelayMs = 1000) {
    super(withoutPassword(url), log)
    this.connection = new AsyncReopening(async () => await this.openNow(), retryDelayMs, message => { this.reportOutage(message) })
  }

  /** The pool, opened now if it could not be before; throws a 503 HttpError while unavailable. */
  async get (): Promise<pg.Pool> {
    const pool = await this.connection.get()
    if (pool === null) throw databaseUnavailable(new Error(this.connection.failure))
    return pool
  }

  /** Runs `listener` on every newly opened pool (registered before open()). */
  onOpen (listener: (pool: pg.Pool) => Promise<void>): void {
    this.openListeners.push(listener)
  }

  async open (): Promise<void> {
    await this.connection.tryOpen()
  }

  async close (): Promise<void> {
    await this.connection.close(pool => pool.end())
  }

  private async openNow (): Promise<pg.Pool> {
    // Loaded only here: node-postgres is not loaded at all by a service on SQLite.
    const { createPool } = await import('../lib/postgres/pool.js')
    const { migratePostgres } = await import('../lib/postgres/migrate.js')
    const pool = createPool(this.url, { max: 10, applicationName: 'advisors' })
    try {
      const migration = await migratePostgres(pool, appPostgresMigrationsDir)
      if (migration.applied.length > 0) {
        this.log.info(`Database ${this.where}: migrated from version ${migration.from} to ${migration.to} (${migration.applied.join(', ')})`)
      }
      for (const listener of this.openListeners) await listener(pool)
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
    this.reportRecovery()
    return pool
  }
}

/** The innermost message of an error's causes: what the database itself said. */
function rootMessage (error: Error): string {
  let current = error
  for (let depth = 0; current.cause instanceof Error && depth < 5; depth++) current = current.cause
  return current.message
}

export default fp<DatabaseOptions>(async function databasePlugin (app, options) {
  const log: Log = {
    info: message => { app.log.info(message) },
    error: message => { app.log.error(message) }
  }
  app.decorateRequest('databaseStatements', null)
  const url = app.config.databaseUrl
  if (url !== null) {
    const postgres = new PostgresBusinessDatabase(url, log, options.retryDelayMs)
    app.decorate('postgresDatabase', postgres)
    app.decorate('databaseOutages', postgres)
    app.decorate('database', { getter: () => { throw new Error('the advisors are on PostgreSQL (DATABASE_URL): use app.advisors') } })
    app.decorate('db', { getter: () => { throw new Error('the advisors are on PostgreSQL (DATABASE_URL): use app.advisors') } })
    // A query that fails because the server is unreachable (a 503 carrying the pg error) starts an outage too.
    app.addHook('onError', async (_request, _reply, error) => {
      if (isPostgresFault(error)) postgres.reportOutage(rootMessage(error))
    })
    app.addHook('onClose', async () => { await postgres.close() })
    return
  }
  app.decorate('postgresDatabase', null)
  const database = new BusinessDatabase(app.config.databasePath, log, options.retryDelayMs)
  database.open()
  app.decorate('database', database)
  app.decorate('databaseOutages', database)
  app.decorate('db', { getter: () => database.get() })
  // A query that fails because the file is unusable (locked, corrupt, I/O) starts an outage too.
  app.addHook('onError', async (_request, _reply, error) => {
    if (isDatabaseUnavailable(error)) database.reportOutage(error.message)
  })
  app.addHook('onClose', async () => { database.close() })
  // SQLite errors that mean the file is unusable now (locked, corrupt, full) are 503s, not bugs.
  app.addErrorRewording(error => isDatabaseUnavailable(error) ? databaseUnavailable(error) : undefined)
}, { name: 'database', dependencies: ['error-renderer'] })
