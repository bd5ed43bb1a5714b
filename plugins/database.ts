import type { Database } from 'better-sqlite3'
import fp from 'fastify-plugin'
import type pg from 'pg'
import { AsyncReopening } from '../lib/async-reopening.js'
import { migratePostgres } from '../lib/postgres/migrate.js'
import { createPool } from '../lib/postgres/pool.js'
import { withoutPassword } from '../lib/postgres/url.js'
import { migrationsDir, postgresMigrationsDir } from '../paths.js'
import { databaseUnavailable } from '../lib/sqlite/faults.js'
import { openSqlite } from '../lib/sqlite/open.js'
import { Reopening } from '../lib/sqlite/reopening.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The advisors' SQLite database (unused, never opened, when DATABASE_URL is set). */
    database: BusinessDatabase
    /** The advisors' PostgreSQL database when DATABASE_URL is set, else null. */
    postgresDatabase: PostgresBusinessDatabase | null
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
  private readonly connection: Reopening<Database>
  private readonly openListeners: Array<(db: Database) => void> = []

  constructor (private readonly path: string, private readonly log: { info: (m: string) => void, error: (m: string) => void }) {
    this.connection = new Reopening(() => this.openNow(), RETRY_MS, (message, first) => {
      // Logged when it starts failing, not on every retry.
      if (first) log.error(`Database ${path} is unavailable (requests that need it answer 503): ${message}`)
    })
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
    if (this.connection.failure !== '') this.log.info(`Database ${this.path} is available again`)
    return db
  }
}

/**
 * The application database on PostgreSQL (DATABASE_URL): a pool, migrated on first open. While
 * it cannot be opened, requests that need it get the same 503 as with SQLite, and the next of them
 * after a second tries again; a server that goes away later is a 503 per query (the pool reconnects).
 */
export class PostgresBusinessDatabase {
  private readonly connection: AsyncReopening<pg.Pool>
  private readonly openListeners: Array<(pool: pg.Pool) => Promise<void>> = []
  private readonly where: string

  constructor (private readonly url: string, private readonly log: { info: (m: string) => void, error: (m: string) => void }) {
    this.where = withoutPassword(url)
    this.connection = new AsyncReopening(async () => await this.openNow(), RETRY_MS, (message, first) => {
      if (first) log.error(`Database ${this.where} is unavailable (requests that need it answer 503): ${message}`)
    })
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
    const pool = createPool(this.url, { max: 10, applicationName: 'advisors' })
    try {
      const migration = await migratePostgres(pool, postgresMigrationsDir)
      if (migration.applied.length > 0) {
        this.log.info(`Database ${this.where}: migrated from version ${migration.from} to ${migration.to} (${migration.applied.join(', ')})`)
      }
      for (const listener of this.openListeners) await listener(pool)
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
    if (this.connection.failure !== '') this.log.info(`Database ${this.where} is available again`)
    return pool
  }
}

export default fp(async function databasePlugin (app) {
  const url = app.config.databaseUrl
  if (url !== null) {
    const postgres = new PostgresBusinessDatabase(url, {
      info: message => { app.log.info(message) },
      error: message => { app.log.error(message) }
    })
    app.decorate('postgresDatabase', postgres)
    app.decorate('database', { getter: () => { throw new Error('the advisors are on PostgreSQL (DATABASE_URL): use app.advisors') } })
    app.decorate('db', { getter: () => { throw new Error('the advisors are on PostgreSQL (DATABASE_URL): use app.advisors') } })
    app.addHook('onClose', async () => { await postgres.close() })
    return
  }
  app.decorate('postgresDatabase', null)
  const database = new BusinessDatabase(app.config.databasePath, {
    info: message => { app.log.info(message) },
    error: message => { app.log.error(message) }
  })
  database.open()
  app.decorate('database', database)
  app.decorate('db', { getter: () => database.get() })
  app.addHook('onClose', async () => { database.close() })
}, { name: 'database' })
