import type { Database } from 'better-sqlite3'
import fp from 'fastify-plugin'
import { migrationsDir } from '../paths.js'
import { openSqlite } from './open-sqlite.js'

declare module 'fastify' {
  interface FastifyInstance { db: Database }
}

/** The application database (advisors), migrated at start and closed with the app. */
export default fp(async function databasePlugin (app) {
  const { db, migration } = openSqlite(app.config.databasePath, migrationsDir)
  if (migration.applied.length > 0) {
    app.log.info(`Database ${app.config.databasePath}: migrated from version ${migration.from} to ${migration.to} (${migration.applied.join(', ')})`)
  }
  app.decorate('db', db)
  app.addHook('onClose', async () => { db.close() })
}, { name: 'database' })
