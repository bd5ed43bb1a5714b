// run-suite: shares a process
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { newestVersion } from '../../lib/migration-files.js'
import { profilerSqliteMigrationsDir } from '../../paths.js'
import { profileJson, storeOnly } from '../helpers/profiler.js'
import { profiler, profilerBin, usageError } from '../helpers/profiler-cli.js'
import { recordedApp } from '../helpers/profile-store.js'

t.test('show: a profile and a panel, the page\'s JSON with --json; unknown tokens and panels are usage errors', async t => {
  const { app, env, tokens } = await recordedApp(t)
  const text = await profiler(['show', tokens.wrongMethod], env)
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, new RegExp(`^Token     ${tokens.wrongMethod}\nStatus    405 Method Not Allowed\nRequest   GET http://localhost/ccenter/getConseillerByCode\n`))
  t.match(text.stdout, /\n\[exception\]\n\{\n {2}"name": "MethodNotAllowedHttpError",/, 'the exception panel by default, as on the page')

  const latest = await profiler(['show', 'latest', '--json'], env)
  t.same(JSON.parse(latest.stdout), storeOnly(await profileJson(app, tokens.poll)), 'latest: the page\'s JSON with every panel, but what is kept (the service\'s settings)')
  const router = await profiler(['show', tokens.robots, '--panel', 'router', '--json'], env)
  t.same(JSON.parse(router.stdout), storeOnly(await profileJson(app, tokens.robots, '?panel=router')))
  const performance = await profiler(['show', tokens.found, '--panel', 'performance'], env)
  t.match(performance.stdout, /\n\[performance\]\n\{\n {2}"totalMs": /)

  await usageError(t, ['show', 'abcdef'], env, 'Token "abcdef" not found.')
  await usageError(t, ['show', '../etc'], env, 'Token "../etc" not found.')
  await usageError(t, ['show', tokens.found, '--panel', 'nope'], env, 'option \'--panel <name>\' argument \'nope\' is invalid. Allowed choices are request, performance, exception, router, db, logs, timeline, env.')
  await usageError(t, ['show'], env, 'missing required argument \'token\'')
  await usageError(t, ['search', '--nope'], env, 'unknown option \'--nope\'')
  await usageError(t, ['serch'], env, 'unknown command \'serch\' (Did you mean search?)', profilerBin)
  await usageError(t, ['search'], { PROFILER_DATABASE_PATH: '' }, 'Invalid environment: PROFILER_DATABASE_PATH must NOT have fewer than 1 characters (got "")')
})

t.test('a store that cannot be read is exit code 1 with one line; it is never created or migrated', async t => {
  const dir = t.testdir({ 'garbage.sqlite': 'this is not a database, just text that is long enough to have a header of sorts'.repeat(20) })
  const missing = join(dir, 'missing.sqlite')
  const absent = await profilerBin(['search'], { PROFILER_DATABASE_PATH: missing })
  t.equal(absent.code, 1)
  t.equal(absent.stderr, `profiler: The profile store ${missing} does not exist (PROFILER_DATABASE_PATH); start the service once to create it\n`)
  t.notOk(existsSync(missing), 'not created')

  const garbage = await profiler(['show', 'latest'], { PROFILER_DATABASE_PATH: join(dir, 'garbage.sqlite') })
  t.equal(garbage.code, 1)
  t.match(garbage.stderr, /^profiler: Cannot read the profile store .*garbage\.sqlite: file is not a database\n$/)

  const old = join(dir, 'old.sqlite')
  const db = new BetterSqlite3(old)
  db.exec('CREATE TABLE unrelated (x)')
  db.close()
  const behind = await profiler(['search'], { PROFILER_DATABASE_PATH: old })
  t.equal(behind.code, 1)
  t.equal(behind.stderr, `profiler: The profile store ${old} is at version 0, this command reads version ${newestVersion(profilerSqliteMigrationsDir)}: start the service once to migrate it\n`)
  const reopened = new BetterSqlite3(old, { readonly: true })
  t.equal(reopened.pragma('user_version', { simple: true }), 0, 'not migrated')
  t.same(reopened.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(), ['unrelated'])
  reopened.close()
})
