// run-suite: shares a process
import t from 'tap'
import BetterSqlite3 from 'better-sqlite3'
import { buildTestApp, postJson } from '../helpers/app.js'

const URL = '/monitor/MonitorPooling'

t.test('the poll answers ok with time, uptime, version and the database check', async t => {
  const app = await buildTestApp(t)
  for (const request of [
    { method: 'POST' as const, url: URL },
    { method: 'POST' as const, url: URL, headers: { 'content-type': 'application/json' }, payload: '{}' },
    { method: 'POST' as const, url: URL, headers: { 'content-type': 'application/json' }, payload: '' }
  ]) {
    const res = await app.inject(request)
    t.equal(res.statusCode, 200)
    const body = res.json()
    t.equal(body.status, 'ok')
    t.equal(body.version, '0.1.0')
    t.same(body.checks, { database: 'ok' })
    t.ok(Math.abs(Date.parse(body.time) - Date.now()) < 5000, 'time is now, ISO-8601')
    t.match(body.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    t.type(body.uptimeSeconds, 'number')
    t.ok(body.uptimeSeconds >= 0)
    t.notOk('advisor' in body)
  }
})

t.test('with a known code it records last_seen_at and answers the advisor status', async t => {
  const app = await buildTestApp(t)
  const before = Date.now()
  const res = await postJson(app, URL, { code: 'ADV1003' })
  t.equal(res.statusCode, 200)
  t.same(res.json().advisor, { code: 'ADV1003', status: 'away' })
  const row = app.db.prepare('SELECT last_seen_at FROM advisors WHERE code = ?').get('ADV1003') as { last_seen_at: string }
  t.ok(Date.parse(row.last_seen_at) >= before - 1000, 'last_seen_at was written')
})

t.test('last_seen_at is written at most once per advisor per second', async t => {
  const app = await buildTestApp(t)
  let writes = 0
  app.db.function('count_write', () => { writes++; return null })
  app.db.exec('CREATE TEMP TRIGGER seen_writes AFTER UPDATE OF last_seen_at ON advisors BEGIN SELECT count_write(); END')
  const started = Date.now()
  for (let i = 0; i < 20; i++) t.equal((await postJson(app, URL, { code: 'ADV1004' })).statusCode, 200)
  const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1
  t.ok(writes >= 1 && writes <= seconds, `${writes} writes in ${seconds} distinct second(s)`)
})

t.test('an unknown code is a 404 and a blank code a 400', async t => {
  const app = await buildTestApp(t)
  const unknown = await postJson(app, URL, { code: 'NOPE' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().message, 'No advisor found for code "NOPE"')
  const blank = await postJson(app, URL, { code: ' ' })
  t.equal(blank.statusCode, 400)
  t.match(blank.json().message, /code/)
})

t.test('a failing database check is a 503 with status degraded', async t => {
  const app = await buildTestApp(t)
  app.db.close()
  const res = await app.inject({ method: 'POST', url: URL })
  t.equal(res.statusCode, 503)
  t.match(res.json(), { status: 'degraded', checks: { database: 'failed' }, version: '0.1.0' })
})

t.test('a database that fails after the check (busy while recording the advisor) is a 503 with the error shape, not a 500', async t => {
  const app = await buildTestApp(t)
  // Another connection holds the write lock; the app's does not wait for it.
  const other = new BetterSqlite3(app.config.databasePath)
  t.teardown(() => other.close())
  app.db.pragma('busy_timeout = 0')
  other.exec('BEGIN IMMEDIATE')
  const res = await postJson(app, URL, { code: 'ADV1001' })
  other.exec('ROLLBACK')
  t.equal(res.statusCode, 503)
  t.same(res.json(), { statusCode: 503, error: 'Service Unavailable', message: 'The advisor database is unavailable at the moment; try again later' })
})

t.test('no type coercion: {"code": true} is a 400 that names the field (it was looked up as "true")', async t => {
  const app = await buildTestApp(t)
  for (const code of [true, 1001, ['ADV1001']]) {
    const res = await postJson(app, URL, { code })
    t.equal(res.statusCode, 400, JSON.stringify(code))
    t.equal(res.json().message, 'body/code must be string')
  }
})
