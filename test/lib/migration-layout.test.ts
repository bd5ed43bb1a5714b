// run-suite: shares a process
// The migrations moved from migrations/{,postgres/,profiler/,profiler/postgres/} to
// migrations/{app,profiler}/{sqlite,postgres}/ (issue 22). Neither engine records where a file
// was: SQLite keeps the version in PRAGMA user_version, PostgreSQL one row per version with the
// file's base name, which the move kept. So stores migrated under the previous layout open as they
// are, on both engines: nothing runs again, the data and the records stay; and a store one
// migration behind gets exactly that migration.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3, { type Database } from 'better-sqlite3'
import pg from 'pg'
import type { Test } from 'tap'
import t from 'tap'
import { buildApp } from '../../app.js'
import { newestVersion } from '../../lib/migration-files.js'
import { appPostgresMigrationsDir, appSqliteMigrationsDir, profilerPostgresMigrationsDir, profilerSqliteMigrationsDir } from '../../paths.js'
import { postJson, testConfig } from '../helpers/app.js'
import { freshDir } from '../helpers/dirs.js'
import { profileJson } from '../helpers/profiler.js'
import { needsPostgres, queryOn, startPostgres } from '../helpers/postgres.js'

type Folder = 'appSqlite' | 'appPostgres' | 'profilerSqlite' | 'profilerPostgres'

/** Each folder of the previous layout (under the package root) and the folder it became. */
const PREVIOUS_LAYOUT: Record<Folder, [before: string, now: string]> = {
  appSqlite: ['migrations', appSqliteMigrationsDir],
  appPostgres: ['migrations/postgres', appPostgresMigrationsDir],
  profilerSqlite: ['migrations/profiler', profilerSqliteMigrationsDir],
  profilerPostgres: ['migrations/profiler/postgres', profilerPostgresMigrationsDir]
}

/**
 * The previous layout rebuilt in a folder of the test's own: the same files at their old paths,
 * less the newest `profilerBehind` of each profiler folder (a store an older checkout migrated).
 */
function previousLayout (t: Test, profilerBehind = 0): Record<Folder, string> {
  const root = freshDir(t, 'previous-layout-')
  const dirs: Partial<Record<Folder, string>> = {}
  for (const [folder, [before, now]] of Object.entries(PREVIOUS_LAYOUT) as Array<[Folder, [string, string]]>) {
    const dir = join(root, before)
    mkdirSync(dir, { recursive: true })
    const files = readdirSync(now).sort()
    for (const file of files.slice(0, files.length - (folder.startsWith('profiler') ? profilerBehind : 0))) copyFileSync(join(now, file), join(dir, file))
    dirs[folder] = dir
  }
  return dirs as Record<Folder, string>
}

/** The `NNN-name.sql` files of a folder, oldest first, with their version (subfolders are other folders' own). */
function migrationFiles (dir: string): Array<{ version: number, file: string, sql: string }> {
  return readdirSync(dir).filter(file => /^\d{3}-[\w.-]+\.sql$/.test(file)).sort()
    .map(file => ({ version: Number(file.slice(0, 3)), file, sql: readFileSync(join(dir, file), 'utf8') }))
}

// What the previous code recorded, written here as it wrote it (not by today's migrators, so that a
// change to how they record cannot change the "before" too): SQLite the version in user_version,
// PostgreSQL a row (version, file name) per migration in the folder's own table.

function migrateSqliteAsBefore (path: string, dir: string, then: (db: Database) => void = () => {}): void {
  const db = new BetterSqlite3(path)
  try {
    db.pragma('journal_mode = WAL')
    for (const { version, sql } of migrationFiles(dir)) {
      db.transaction(() => { db.exec(sql); db.pragma(`user_version = ${version}`) }).immediate()
    }
    then(db)
  } finally {
    db.close()
  }
}

async function migratePostgresAsBefore (client: pg.Client, dir: string, table: string): Promise<void> {
  await client.query(`CREATE TABLE ${table} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
  for (const { version, file, sql } of migrationFiles(dir)) {
    await client.query('BEGIN')
    await client.query(sql)
    await client.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [version, file])
    await client.query('COMMIT')
  }
}

const OLD_ADVISOR = ['OLD1', 'Ada', 'Before', 'ada@example.test', 'Sales', '2024-01-01T00:00:00.000Z']
const INSERT_ADVISOR = 'INSERT INTO advisors (code, first_name, last_name, email, team, updated_at) VALUES ($1, $2, $3, $4, $5, $6)'

/** Starts the service on `env`: the advisor written before the move is answered, a new profile is written and read. */
async function serviceWorks (t: Test, env: Record<string, string>): Promise<void> {
  const app = await buildApp(testConfig(t, env))
  try {
    await app.ready()
    const lookup = await postJson(app, '/ccenter/getConseillerByCode', { code: OLD_ADVISOR[0] })
    t.equal(lookup.statusCode, 200, 'the advisor written before the move is answered')
    t.equal(lookup.json().lastName, OLD_ADVISOR[2])
    const token = String(lookup.headers['x-debug-token'])
    t.match(await profileJson(app, token), { token }, 'a profile is written and read back')
  } finally {
    await app.close()
  }
}

/** SQLite stores migrated by the previous layout, with an advisor. */
function previousSqliteStores (t: Test, profilerBehind = 0): { DATABASE_PATH: string, PROFILER_DATABASE_PATH: string } {
  const previous = previousLayout(t, profilerBehind)
  const dir = freshDir(t, 'stores-')
  const env = { DATABASE_PATH: join(dir, 'app.sqlite'), PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite') }
  migrateSqliteAsBefore(env.DATABASE_PATH, previous.appSqlite, db => { db.prepare(INSERT_ADVISOR.replace(/\$\d/g, '?')).run(...OLD_ADVISOR) })
  migrateSqliteAsBefore(env.PROFILER_DATABASE_PATH, previous.profilerSqlite)
  return env
}

/** The recorded version, and the schema cookie SQLite bumps on any schema change (a migration that ran). */
function sqliteState (path: string): { version: unknown, schemaChanges: unknown } {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return { version: db.pragma('user_version', { simple: true }), schemaChanges: db.pragma('schema_version', { simple: true }) }
  } finally {
    db.close()
  }
}

t.test('SQLite: stores migrated under the previous layout open as they are', async t => {
  const env = previousSqliteStores(t)
  const before = [sqliteState(env.DATABASE_PATH), sqliteState(env.PROFILER_DATABASE_PATH)]
  t.same(before.map(state => state.version), [newestVersion(appSqliteMigrationsDir), newestVersion(profilerSqliteMigrationsDir)], 'both at the newest version')
  await serviceWorks(t, env)
  t.same([sqliteState(env.DATABASE_PATH), sqliteState(env.PROFILER_DATABASE_PATH)], before, 'no schema change: no migration ran again')
})

t.test('SQLite: a profile store one migration behind under the previous layout gets that one', async t => {
  const env = previousSqliteStores(t, 1)
  const before = sqliteState(env.PROFILER_DATABASE_PATH)
  // The version of the file before the newest (not newest - 1: branches may leave a number free).
  t.equal(before.version, migrationFiles(profilerSqliteMigrationsDir).at(-2)?.version)
  await serviceWorks(t, env)
  const after = sqliteState(env.PROFILER_DATABASE_PATH)
  t.equal(after.version, newestVersion(profilerSqliteMigrationsDir), 'at the newest version')
  t.not(after.schemaChanges, before.schemaChanges, 'the check above sees a migration that runs')
})

if (needsPostgres(t)) {
  t.test('PostgreSQL: migrated under the previous layout, opened by the service', async t => {
    const cluster = await startPostgres(t)
    let databases = 0

    /** A database (advisors and profiles together) migrated by the previous layout, with an advisor. */
    const previousDatabase = async (profilerBehind = 0): Promise<string> => {
      const previous = previousLayout(t, profilerBehind)
      const url = await cluster.createDatabase(`previous_layout_${++databases}`)
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        // The tables the previous code recorded into: the app's, the profiler's own.
        await migratePostgresAsBefore(client, previous.appPostgres, 'schema_migrations')
        await migratePostgresAsBefore(client, previous.profilerPostgres, 'profiler_schema_migrations')
        await client.query(INSERT_ADVISOR, OLD_ADVISOR)
      } finally {
        await client.end()
      }
      return url
    }
    const records = async (url: string): Promise<Array<Array<Record<string, unknown>>>> => [
      await queryOn(url, 'SELECT version, name, applied_at FROM schema_migrations ORDER BY version'),
      await queryOn(url, 'SELECT version, name, applied_at FROM profiler_schema_migrations ORDER BY version')
    ]

    t.test('at the newest version: opens as it is, its records unchanged', async t => {
      const url = await previousDatabase()
      const before = await records(url)
      t.same(before.map(rows => rows.at(-1)?.version), [newestVersion(appPostgresMigrationsDir), newestVersion(profilerPostgresMigrationsDir)], 'both at the newest version')
      await serviceWorks(t, { DATABASE_URL: url, PROFILER_DATABASE_URL: url })
      t.same(await records(url), before, 'the records are the ones the previous layout wrote')
    })

    t.test('one profiler migration behind: gets that one, recorded beside the old records', async t => {
      const url = await previousDatabase(1)
      const before = await records(url)
      await serviceWorks(t, { DATABASE_URL: url, PROFILER_DATABASE_URL: url })
      const after = await records(url)
      t.same(after[0], before[0], 'the advisors\' records unchanged')
      t.same(after[1]?.slice(0, -1), before[1], 'the profiler\'s old records kept')
      const newest = readdirSync(profilerPostgresMigrationsDir).sort().at(-1)
      t.match(after[1]?.at(-1), { version: newestVersion(profilerPostgresMigrationsDir), name: newest }, 'and the newest added')
    })
  })
}
