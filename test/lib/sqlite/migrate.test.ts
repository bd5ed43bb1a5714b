// run-suite: shares a process
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { migrate, MigrationError } from '../../../lib/sqlite/migrate.js'
import { openSqlite } from '../../../lib/sqlite/open.js'
import { appSqliteMigrationsDir } from '../../../paths.js'

t.test('the app migrations create the advisors table in WAL mode', async t => {
  const path = join(t.testdir(), 'var', 'nested', 'app.sqlite')
  const { db, migration } = openSqlite(path, appSqliteMigrationsDir)
  t.teardown(() => db.close())
  t.same(migration.applied, ['001-create-advisors.sql'])
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  t.equal(db.pragma('user_version', { simple: true }), 1)
  const columns = (db.prepare('PRAGMA table_info(advisors)').all() as Array<{ name: string }>).map(c => c.name)
  t.same(columns, ['code', 'first_name', 'last_name', 'email', 'team', 'phone_extension', 'status', 'last_seen_at', 'updated_at'])
  t.same(migrate(db, appSqliteMigrationsDir).applied, [], 'a second run applies nothing')
})

t.test('migrations apply in order; a failing one leaves the previous version', async t => {
  const dir = t.testdir({
    '001-one.sql': 'CREATE TABLE one (id INTEGER);',
    '002-two.sql': 'CREATE TABLE two (id INTEGER);',
    '003-broken.sql': 'CREATE TABLE three (id INTEGER); INSERT INTO nowhere VALUES (1);',
    'notes.txt': 'not a migration'
  })
  const db = new BetterSqlite3(join(dir, 'db.sqlite'))
  t.teardown(() => db.close())
  const error = t.throws(() => migrate(db, dir)) as MigrationError
  t.ok(error instanceof MigrationError)
  t.equal(error.file, '003-broken.sql')
  t.match(error.message, /^Migration 003-broken\.sql failed: no such table: nowhere$/)
  t.equal(db.pragma('user_version', { simple: true }), 2)
  t.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'two'").get())
  t.notOk(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'three'").get(), 'the failed file is rolled back whole')

  writeFileSync(join(dir, '003-broken.sql'), 'CREATE TABLE three (id INTEGER);')
  t.same(migrate(db, dir), { from: 2, to: 3, applied: ['003-broken.sql'] })
})

t.test('a database newer than the code is refused', async t => {
  const dir = t.testdir({ '001-one.sql': 'CREATE TABLE one (id INTEGER);' })
  const db = new BetterSqlite3(':memory:')
  t.teardown(() => db.close())
  db.pragma('user_version = 7')
  t.throws(() => migrate(db, dir), /database is at version 7, newer than this code/)
})
