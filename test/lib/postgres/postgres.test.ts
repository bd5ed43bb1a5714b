import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { join } from 'node:path'
import pg from 'pg'
import t from 'tap'
import { isPostgresDataError, isPostgresFault } from '../../../lib/postgres/faults.js'
import { migratePostgres } from '../../../lib/postgres/migrate.js'
import { createPool } from '../../../lib/postgres/pool.js'
import { withoutPassword } from '../../../lib/postgres/url.js'
import { needsPostgres, startPostgres } from '../../helpers/postgres.js'

t.test('withoutPassword hides the password, keeps the rest', async t => {
  t.equal(withoutPassword('postgres://u:s3cret@db:5432/x?sslmode=require'), 'postgres://u:***@db:5432/x?sslmode=require')
  t.equal(withoutPassword('postgres://u@db/x'), 'postgres://u@db/x')
  t.notMatch(withoutPassword('postgres://u:s3cret@[bad'), 's3cret')
})

t.test("a pool gives up connecting after the URL's connect_timeout (seconds, as libpq), else after 5 s", async t => {
  // A server that takes the connection and never answers it.
  const sockets = new Set<Socket>()
  const silent = createServer(socket => { sockets.add(socket) })
  await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise(resolve => silent.close(resolve))
  })
  const url = `postgres://nobody@127.0.0.1:${(silent.address() as AddressInfo).port}/none`
  const timeToGiveUp = async (poolUrl: string): Promise<{ ms: number, error: unknown }> => {
    const pool = createPool(poolUrl, { max: 1, applicationName: 'connect timeout test' })
    const started = performance.now()
    const error = await pool.query('SELECT 1').then(() => null, (err: unknown) => err)
    const ms = performance.now() - started
    await pool.end()
    return { ms, error }
  }
  const short = await timeToGiveUp(`${url}?connect_timeout=1`)
  t.ok(isPostgresFault(short.error), `a fault: ${String(short.error)}`)
  t.ok(short.ms >= 900 && short.ms < 4000, `connect_timeout=1: gave up after ${short.ms.toFixed(0)} ms`)
  const byDefault = await timeToGiveUp(url)
  t.ok(isPostgresFault(byDefault.error), `a fault: ${String(byDefault.error)}`)
  t.ok(byDefault.ms >= 4900, `no connect_timeout: gave up after ${byDefault.ms.toFixed(0)} ms`)
})

if (needsPostgres(t)) {
  t.test('real errors: which are faults', async t => {
    const cluster = await startPostgres(t)
    const refused = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${cluster.port + 1}/postgres`, connectionTimeoutMillis: 2000 })
    const connectError = await refused.connect().then(() => null, (err: unknown) => err)
    t.ok(isPostgresFault(connectError), `connection refused: ${String(connectError)}`)

    const pool = createPool(cluster.url, { max: 2, applicationName: 'fault test' })
    t.teardown(() => pool.end())
    const syntax = await pool.query('SELEC 1').then(() => null, (err: unknown) => err)
    t.notOk(isPostgresFault(syntax), 'a syntax error is not a fault')
    const data = await pool.query("SELECT 'x'::int").then(() => null, (err: unknown) => err)
    t.notOk(isPostgresFault(data), 'bad data is not a fault')
    t.ok(isPostgresDataError(data), 'but an error about the data (22P02)')
    t.notOk(isPostgresDataError(syntax), 'a syntax error is not about the data')

    // A statement cancelled by its timeout (behind another session's lock) and a privilege the role
    // lacks (revoked): the server cannot serve us now, and may again later. (A rotated password,
    // 28P01, needs password authentication: test/profiler/postgres-store.test.ts.)
    const timedOut = await pool.query("SET statement_timeout = '50ms'; SELECT pg_sleep(1)").then(() => null, (err: unknown) => err)
    await pool.query('RESET statement_timeout')
    t.ok(isPostgresFault(timedOut), `a statement timeout (57014): ${String(timedOut)}`)
    t.notOk(isPostgresDataError(timedOut), 'not about the data')
    await cluster.query('CREATE ROLE unprivileged LOGIN')
    const unprivileged = new pg.Client({ connectionString: `postgres://unprivileged@127.0.0.1:${cluster.port}/postgres` })
    await unprivileged.connect()
    const noPrivilege = await unprivileged.query('CREATE DATABASE not_allowed').then(() => null, (err: unknown) => err)
    await unprivileged.end()
    t.ok(isPostgresFault(noPrivilege), `a privilege missing (42501): ${String(noPrivilege)}`)

    const victim = await pool.connect()
    victim.on('error', () => {})
    const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid
    await cluster.query('SELECT pg_terminate_backend($1)', [pid])
    const terminated = await victim.query('SELECT 1').then(() => null, (err: unknown) => err)
    victim.release(true)
    t.ok(isPostgresFault(terminated), `a terminated connection (57P01): ${String(terminated)}`)
    t.same((await pool.query('SELECT 1 AS one')).rows, [{ one: 1 }], 'the pool carries on with a new connection')
  })

  t.test('migrations: each file once, in order, even when several connections migrate at once', async t => {
    const cluster = await startPostgres(t)
    const dir = t.testdir()
    mkdirSync(join(dir, 'm'))
    writeFileSync(join(dir, 'm', '001-first.sql'), 'CREATE TABLE one (id int); INSERT INTO one VALUES (1);')
    writeFileSync(join(dir, 'm', '002-second.sql'), 'INSERT INTO one VALUES (2);')
    const pools = [0, 1, 2].map(() => createPool(cluster.url, { max: 1, applicationName: 'migrate test' }))
    t.teardown(async () => { await Promise.all(pools.map(pool => pool.end())) })
    const results = await Promise.all(pools.map(pool => migratePostgres(pool, join(dir, 'm'), 'test_migrations')))
    t.same(results.flatMap(result => result.applied).sort(), ['001-first.sql', '002-second.sql'], 'each applied by exactly one')
    t.same((await cluster.query('SELECT id FROM one ORDER BY id')).map(row => row.id), [1, 2])
    writeFileSync(join(dir, 'm', '003-broken.sql'), 'INSERT INTO missing VALUES (3);')
    await t.rejects(migratePostgres(pools[0] as pg.Pool, join(dir, 'm'), 'test_migrations'), /Migration 003-broken.sql failed/)
    t.same((await cluster.query('SELECT max(version) AS v FROM test_migrations'))[0], { v: 2 }, 'a failed migration leaves the version')
  })
}
