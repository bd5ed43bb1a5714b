// run-suite: shares a process
// The advisors on PostgreSQL (DATABASE_URL): the same answers as on SQLite, the same 503 while the
// database is down and the same recovery, sample data in development, the import script.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { buildTestApp, expectAdvisorsUnavailable, postJson } from '../helpers/app.js'
import { needsPostgres, queryOn, startPostgres, type PostgresCluster } from '../helpers/postgres.js'
import { runNode } from '../helpers/run.js'
import { waitFor } from '../helpers/wait-for.js'

const POLL = '/monitor/MonitorPooling'
const LOOKUP = '/ccenter/getConseillerByCode'

if (needsPostgres(t)) {
  let cluster: PostgresCluster
  let databases = 0
  t.before(async () => { cluster = await startPostgres(t) })
  const freshDatabase = async (): Promise<string> => await cluster.createDatabase(`advisors_${++databases}`)

  t.test('the same answers as on SQLite, sample data loaded in development', async t => {
    const url = await freshDatabase()
    const onPostgres = await buildTestApp(t, { DATABASE_URL: url, PROFILER: 'off' })
    const sqliteDir = t.testdir()
    const onSqlite = await buildTestApp(t, { DATABASE_PATH: join(sqliteDir, 'other.sqlite'), PROFILER: 'off' })
    for (const code of ['ADV1001', 'ADV1003', ' ADV1004 ', 'NOPE', 'AD\u0000V1', '\uD800X', 'é中😀']) {
      const a = await postJson(onPostgres, LOOKUP, { code })
      const b = await postJson(onSqlite, LOOKUP, { code })
      t.equal(a.statusCode, b.statusCode, `${JSON.stringify(code)}: same status`)
      const { updatedAt: _a, ...fromPostgres } = a.json()
      const { updatedAt: _b, ...fromSqlite } = b.json()
      t.same(fromPostgres, fromSqlite, `${JSON.stringify(code)}: same answer`)
    }
    const seen = await postJson(onPostgres, POLL, { code: 'ADV1003' })
    t.equal(seen.statusCode, 200)
    t.same(seen.json().advisor, { code: 'ADV1003', status: 'away' })
    const row = (await queryOn(url, "SELECT last_seen_at FROM advisors WHERE code = 'ADV1003'"))[0]
    t.ok(Date.parse(String(row?.last_seen_at)) > Date.now() - 60_000, 'last_seen_at written')
  })

  t.test('database down: 503 degraded poll and 503 lookup, then recovery by itself', async t => {
    const url = await freshDatabase()
    const app = await buildTestApp(t, { DATABASE_URL: url, PROFILER: 'off' })
    t.equal((await app.inject({ method: 'POST', url: POLL })).statusCode, 200)
    await cluster.stop()
    try {
      await expectAdvisorsUnavailable(t, app)
    } finally {
      await cluster.start()
    }
    await waitFor(async () => (await postJson(app, LOOKUP, { code: 'ADV1001' })).statusCode === 200, { timeoutMs: 30_000, intervalMs: 100, what: 'the lookup answers again' })
    t.equal((await postJson(app, LOOKUP, { code: 'ADV1001' })).json().lastName, 'Martin')
  })

  t.test('unreachable at start: the service starts degraded and opens the database once it can', async t => {
    const url = await freshDatabase()
    await cluster.stop()
    let app: Awaited<ReturnType<typeof buildTestApp>> | undefined
    try {
      app = await buildTestApp(t, { DATABASE_URL: url, PROFILER: 'off' })
      t.equal((await app.inject({ method: 'POST', url: POLL })).statusCode, 503)
    } finally {
      await cluster.start()
    }
    const started = app as Awaited<ReturnType<typeof buildTestApp>>
    await waitFor(async () => (await postJson(started, LOOKUP, { code: 'ADV1001' })).statusCode === 200, { timeoutMs: 30_000, intervalMs: 100, what: 'it opens, migrates and loads the samples' })
    t.equal((await postJson(started, LOOKUP, { code: 'ADV1001' })).json().lastName, 'Martin')
  })

  t.test('the import script writes to PostgreSQL when DATABASE_URL is set', async t => {
    const url = await freshDatabase()
    const dir = t.testdir()
    writeFileSync(join(dir, 'advisors.csv'), 'code,first_name,last_name,email,team,phone_extension,status,last_seen_at\nC1,Ann,Lee,ann@example.test,Sales,12,busy,\n')
    const res = await runNode('scripts/import-advisors.js', [join(dir, 'advisors.csv')], { DATABASE_URL: url })
    t.equal(res.code, 0, res.stderr)
    t.match(res.stdout, /^Imported 1 advisors into postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/)
    t.notMatch(res.stdout, 'test-password', 'the password is not shown')
    t.same(await queryOn(url, 'SELECT code, last_name, status FROM advisors'), [{ code: 'C1', last_name: 'Lee', status: 'busy' }])
  })
}
