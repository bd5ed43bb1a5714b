// run-suite: shares a process
// What only the PostgreSQL store has: a server that goes away and comes back, a password rotated,
// tables locked past the statement timeout, several instances writing at once, time partitions
// dropped whole.
import { dirname } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import t from 'tap'
import { businessTokens } from '../helpers/business-requests.js'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { needsPostgres, queryOn, startPostgres, type PostgresCluster } from '../helpers/postgres.js'
import { profilePartitions } from '../helpers/profile-partitions.js'
import { listProfiles } from '../helpers/profiler.js'
import { passwordRole } from '../helpers/soak/run-soak.js'
import { storeCaughtUp, storeFailing } from '../helpers/store-health.js'
import { postgresStoredTokens } from '../helpers/stored-tokens.js'
import { untilClock, waitFor } from '../helpers/wait-for.js'

/** How long a fault or a recovery may take to be seen, polled gently (each check may query PostgreSQL). */
const RECOVERY = { timeoutMs: 30_000, intervalMs: 100 }

if (needsPostgres(t)) {
  let cluster: PostgresCluster
  let databases = 0
  t.before(async () => { cluster = await startPostgres(t) })
  const freshDatabase = async (): Promise<string> => await cluster.createDatabase(`store_${++databases}`)

  t.test('PostgreSQL stopped and started: requests answered, profiles kept and written after recovery, one line each', async t => {
    const { app, logLines } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: await freshDatabase() }, { profiler: { store: { retryDelayMs: 100 } } })
    const before = await businessTokens(t, app, 5)
    await app.profileStore.flush()
    await cluster.stop()
    const during = await businessTokens(t, app, 20)
    await waitFor(async () => await storeFailing(app), { ...RECOVERY, what: 'the fault is seen' })
    const more = await businessTokens(t, app, 10)
    const listing = await app.inject({ url: '/_profiler/empty/search/results', headers: { accept: 'application/json' } })
    t.equal(listing.statusCode, 503, 'the listing says the store is unavailable')
    t.match(listing.json().message, /profile store is unavailable/)
    t.ok(app.profileStore.healthSnapshot().queued >= 30, 'the profiles wait in the queue')
    t.equal(logLines(/cannot be written/).length, 1, 'one line at the fault')
    await cluster.start()
    await waitFor(async () => await storeCaughtUp(app), { ...RECOVERY, what: 'the store is written again' })
    t.equal(logLines(/writable again/).length, 1, 'one line at recovery')
    t.match(logLines(/writable again/)[0], /0 profile\(s\) could not be stored meanwhile/)
    let listed: string[] = []
    await waitFor(async () => {
      const res = await app.inject({ url: '/_profiler/empty/search/results?limit=100', headers: { accept: 'application/json' } })
      if (res.statusCode === 200) listed = (res.json() as { results: Array<{ token: string }> }).results.map(row => row.token)
      return res.statusCode === 200
    }, { ...RECOVERY, what: 'the listing answers again' })
    const sent = [...before, ...during, ...more]
    t.same(sent.filter(token => !listed.includes(token)), [], `all ${sent.length} business profiles arrived, none lost`)
    t.ok(listed.length > sent.length, 'and the failed listing (503) was recorded too')
    t.equal(app.profileStore.dropped, 0)
  })

  /** The listing's answer while the store cannot be read: a 503 naming the profile store, never a 500. */
  const listing = async (app: FastifyInstance) => await app.inject({ url: '/_profiler/empty/search/results?limit=100', headers: { accept: 'application/json' } })

  /** Waits until everything queued is stored and the store says ok. */
  const caughtUp = async (app: FastifyInstance): Promise<void> => {
    await waitFor(async () => await storeCaughtUp(app), { ...RECOVERY, what: 'the store has caught up' })
  }

  t.test('the password rotated and the sessions ended (scram-sha-256): no profile lost, the pages answer 503 meanwhile', async t => {
    // The soak's role: the profiler must give its password on 127.0.0.1 (everyone else is trusted).
    await cluster.createDatabase('soak_profiler')
    const [{ data_directory: dataDir }] = await cluster.query<{ data_directory: string }>('SHOW data_directory') as [{ data_directory: string }]
    const url = await passwordRole(cluster, dirname(dataDir))
    const { username: role, password } = new URL(url)
    const { app, logLines } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url }, { profiler: { store: { retryDelayMs: 100 } } })
    const before = await businessTokens(t, app, 10)
    await app.profileStore.flush()

    await cluster.query(`ALTER ROLE ${role} PASSWORD 'rotated'`)
    // Termination is a signal: on a loaded machine a session can still write a batch before it
    // ends, and then nothing is left to fail; and a connection whose password exchange began before
    // the ALTER still opens a session after it. So every session of the role is ended again until
    // none is left, and the requests below come once they are gone.
    await waitFor(async () => {
      await cluster.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role])
      return Number((await cluster.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1', [role]))[0]?.n) === 0
    }, { ...RECOVERY, what: 'the sessions to end' })
    const during = await businessTokens(t, app, 20)
    await waitFor(async () => await storeFailing(app), { ...RECOVERY, what: 'the rotation is seen' })
    t.match(app.profileStore.healthSnapshot().reason, /password authentication failed|terminating connection/)
    const refused = await listing(app)
    t.equal(refused.statusCode, 503, 'the listing says the store is unavailable')
    t.match(refused.json().message, /^The profile store is unavailable: /)
    during.push(...await businessTokens(t, app, 20))

    await cluster.query(`ALTER ROLE ${role} PASSWORD '${decodeURIComponent(password)}'`)
    await caughtUp(app)
    await waitFor(async () => (await listing(app)).statusCode === 200, { ...RECOVERY, what: 'the listing answers again' })
    const stored = await postgresStoredTokens(cluster.urlOf('soak_profiler'))
    t.ok([...before, ...during].every(token => stored.has(token)), 'every profile of the rotation is stored')
    t.equal(app.profileStore.dropped, 0, 'none dropped')
    t.equal(logLines(/cannot be written/).length, 1, 'the fault logged once')
  })

  t.test('tables locked past the statement timeout: the batch in flight is retried, not lost; the pages answer 503, never as the advisors\' database', async t => {
    // The advisors on PostgreSQL too: their outage hook must not take the profiler's fault for theirs.
    const { app, logLines } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: await freshDatabase(), DATABASE_URL: await freshDatabase() }, { profiler: { store: { retryDelayMs: 100 }, statementTimeoutMs: 500 } })
    const before = await businessTokens(t, app, 5)
    await app.profileStore.flush()
    const locker = new pg.Client({ connectionString: (app.config.profilerDatabaseUrl as string).replace(/\/\/[^@]*@/, '//postgres@') })
    await locker.connect()
    t.teardown(async () => { await locker.end() })

    await locker.query('BEGIN')
    await locker.query('LOCK TABLE profile_tokens IN ACCESS EXCLUSIVE MODE')
    const during = await businessTokens(t, app, 12)
    await waitFor(async () => await storeFailing(app), { ...RECOVERY, what: 'the timeout is seen' })
    t.match(app.profileStore.healthSnapshot(), { reason: /statement timeout/, queued: 12 }, 'the batch in flight is kept')
    await locker.query('COMMIT')
    await caughtUp(app)
    const stored = await postgresStoredTokens(app.config.profilerDatabaseUrl as string)
    t.ok([...before, ...during].every(token => stored.has(token)), 'every profile is stored')
    t.equal(app.profileStore.dropped, 0, 'none dropped')

    await locker.query('BEGIN')
    await locker.query('LOCK TABLE profiles IN ACCESS EXCLUSIVE MODE')
    const locked = await listing(app)
    t.equal(locked.statusCode, 503, 'the listing while profiles is locked')
    t.match(locked.json().message, /^The profile store is unavailable: canceling statement due to statement timeout/)
    const poll = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: {} })
    t.equal(poll.statusCode, 200, 'the advisors\' database is not taken to be down')
    t.same(logLines(/Database .* is unavailable/), [], 'nor logged as down')
    t.equal(logLines(/profile store cannot be read/).length, 1, 'the profile store\'s fault is logged, once')
    await locker.query('COMMIT')
    await waitFor(async () => (await listing(app)).statusCode === 200, { ...RECOVERY, what: 'the listing answers again' })
  })

  t.test('the panels are compressed with lz4 (migration 018), in the partitions made after the migration too', async t => {
    const url = await freshDatabase()
    const { app } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url })
    // A body that does not compress to nothing: the panels pass TOAST's 2 KB threshold and are compressed.
    const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ note: Array.from({ length: 300 }, (_, i) => `word${i * 7919 % 1000}`).join(' ') }) })
    await app.profileStore.flush()
    const token = res.headers['x-debug-token'] as string
    const [stored] = await queryOn(url, 'SELECT pg_column_compression(panels) AS method, tableoid::regclass::text AS partition FROM profile_data WHERE token = $1', [token])
    t.equal(stored?.method, 'lz4', 'the stored panels')
    const partitions = await queryOn(url, `SELECT c.relname, a.attcompression FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'panels' WHERE i.inhparent = 'profile_data'::regclass`)
    t.ok(partitions.length >= 1 && partitions.every(row => row.attcompression === 'l'), `every partition's column: ${JSON.stringify(partitions)}`)
    t.ok(partitions.some(row => row.relname === stored?.partition), 'the stored profile\'s partition among them')
  })

  t.test('a profile the store refuses (a value out of range) is set aside and counted; the rest of its batch is stored', async t => {
    const url = await freshDatabase()
    const { app, logLines } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url }, { profiler: { store: { flushDelayMs: 600_000 } } })
    const before = await businessTokens(t, app, 2)
    app.profileStore.reserveToken('bad000')
    // status_code is a smallint: 70000 is refused (22003), by this profile alone.
    const bad = { id: app.profileStore.nextId(Date.now()), token: 'bad000', parentToken: null, type: 'request' as const, ip: '127.0.0.1', method: 'GET', url: 'http://x/', statusCode: 70_000, durationMs: 1, route: null, panels: '{}' }
    t.ok(app.profileStore.enqueue(bad))
    const after = await businessTokens(t, app, 2)
    await app.profileStore.flush()
    t.equal(app.profileStore.dropped, 1, 'the bad one is counted')
    t.match(app.profileStore.healthSnapshot(), { state: 'ok', queued: 0 })
    t.match(logLines(/dropped so far/)[0], /profile bad000 could not be stored: value \\"70000\\" is out of range for type smallint/)
    const stored = await postgresStoredTokens(url)
    t.ok([...before, ...after].every(token => stored.has(token)) && !stored.has('bad000'), 'the rest of its batch is stored')
  })

  t.test('two instances drawing the same tokens at the same time: each token stored once, the other profile rejected and counted', async t => {
    const url = await freshDatabase()
    // Both draw the same sequence: every token clashes, and each is claimed by whichever commits first.
    const sequence = (): () => string => {
      let n = 0
      return () => (0xa00000 + n++).toString(16)
    }
    const a = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_DEPLOYMENT: 'A' }, { profiler: { tokenSource: sequence() } })
    const b = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_DEPLOYMENT: 'B' }, { profiler: { tokenSource: sequence() } })
    const rounds = 200
    await Promise.all([businessTokens(t, a.app, rounds, { url: '/monitor/MonitorPooling?from=A' }), businessTokens(t, b.app, rounds, { url: '/monitor/MonitorPooling?from=B' })])
    await Promise.all([a.app.profileStore.flush(), b.app.profileStore.flush()])
    const rows = await queryOn(url, 'SELECT token, deployment, url FROM profiles ORDER BY token')
    t.equal(rows.length, rounds, 'one profile per token')
    t.equal(new Set(rows.map(row => row.token)).size, rounds, 'tokens unique')
    t.ok(rows.every(row => row.url.endsWith(`from=${row.deployment}`)), 'each stored profile is whole: its deployment wrote it')
    t.equal(a.app.profileStore.dropped + b.app.profileStore.dropped, rounds, 'every rejected profile is counted')
  })

  t.test('retention by age drops whole time partitions, then only the expired rows of the one that straddles the bound', async t => {
    const url = await freshDatabase()
    const { app } = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_MAX_AGE: '60s', PROFILER_MAX_PROFILES: '1000' }, {
      profiler: { target: { engine: 'postgres', url, partitionMs: 500 } }
    })
    for (let i = 0; i < 4; i++) {
      await businessTokens(t, app, 3)
      // The next requests start in the next half-second partition.
      await untilClock((Math.floor(Date.now() / 500) + 1) * 500)
    }
    await app.profileStore.flush()
    const partitions = async (): Promise<number[]> => await profilePartitions(url)
    const made = await partitions()
    t.ok(made.length >= 4, `one partition per half second: ${made.join(', ')}`)
    // Seen from 60 s after the 6th newest profile started: the six older ones are expired.
    const before = await listProfiles(app)
    const cut = Date.parse(before[5]?.time ?? '')
    await app.profileStore.prune(cut + 60_000)
    const left = await partitions()
    t.ok(left.length < made.length && left.length >= 1, `the oldest partitions were dropped: ${left.join(', ')}`)
    t.same(left, made.slice(made.length - left.length), 'the newest remain')
    const listed = await listProfiles(app)
    t.same(listed.map(p => p.token), before.filter(p => Date.parse(p.time) >= cut).map(p => p.token), 'exactly the profiles that started since')
    t.equal(app.profileStore.count, listed.length)
    // Dropping a partition leaves the route statistics alone: they count requests, not stored profiles.
    const counted = async (): Promise<number> => (await app.inject({ url: '/_profiler/stats?window=7d', headers: { accept: 'application/json' } })).json().routes
      .reduce((sum: number, r: { count: number }) => sum + r.count, 0)
    t.equal(await counted(), before.length, 'the statistics still count every request')
    await app.profileStore.prune(Date.now() + 61_000)
    t.equal(await counted(), before.length, 'also once all profiles are pruned')
    t.same(await listProfiles(app), [])
    const tokensLeft = await queryOn(url, 'SELECT count(*)::int AS n FROM profile_tokens WHERE profile_id >= (SELECT horizon FROM profile_horizon)')
    t.equal(tokensLeft[0]?.n, 0, 'no live token claim is left for pruned profiles')
    await app.profileStore.prune(Date.now() + 61_000)
    const keysLeft = await queryOn(url, 'SELECT (SELECT count(*) FROM profile_urls)::int AS urls, (SELECT count(*) FROM profile_ips)::int AS ips')
    t.same(keysLeft, [{ urls: 0, ips: 0 }], 'the distinct URLs and IPs of pruned profiles are swept too')
  })

  t.test('a sweep by another instance while a writer names an expired URL and IP again keeps both: the new profile is still found by its URL and its IP', async t => {
    const url = await freshDatabase()
    // One partition for both profiles: dropping one would wait for the writer's transaction.
    const settings = { profiler: { target: { engine: 'postgres' as const, url, partitionMs: 10 * 86_400_000 } } }
    const a = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_DEPLOYMENT: 'A', PROFILER_MAX_AGE: '60s' }, settings)
    const b = await buildLoggedApp(t, { PROFILER_DATABASE_URL: url, PROFILER_DEPLOYMENT: 'B', PROFILER_MAX_AGE: '60s' }, settings)
    const target = '/monitor/MonitorPooling?sweep=race'
    const poll = async (): Promise<void> => {
      const res = await a.app.inject({ method: 'POST', url: target, headers: { 'content-type': 'application/json' }, payload: '{}' })
      t.equal(res.statusCode, 200)
    }
    await poll()
    await a.app.profileStore.flush()
    const [old] = await listProfiles(a.app)
    if (old === undefined) throw new Error('the first profile was not stored')
    // Seen from cutMs + 60 s, the first profile has expired and the second, started after cutMs, has not.
    const cutMs = Date.parse(old.time) + 1
    const waitingOn = (statement: string) => async (): Promise<boolean> =>
      (await queryOn(url, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '${statement}%'`))[0]?.n === 1
    // The writer's transaction is held after it named the URL again (its store statement names the URL, then the IP).
    const locker = new pg.Client({ connectionString: url })
    await locker.connect()
    t.teardown(async () => { await locker.end() })
    await locker.query('BEGIN')
    await locker.query('SELECT 1 FROM profile_ips WHERE ip = $1 FOR UPDATE', [old.ip])
    await untilClock(cutMs + 1)
    await poll()
    const written = a.app.profileStore.flush()
    await waitFor(waitingOn('WITH profile_rows'), { ...RECOVERY, what: 'the writer waiting, the URL named again' })
    // Meanwhile the other instance prunes: its sweep reaches the URL the writer holds, and waits.
    const pruned = b.app.profileStore.prune(cutMs + 60_000)
    await waitFor(waitingOn('DELETE FROM profile_urls'), { ...RECOVERY, what: 'the sweep waiting for the URL' })
    await locker.query('ROLLBACK')
    await Promise.all([written, pruned])

    const listed = await listProfiles(a.app)
    t.equal(listed.length, 1, 'the expired profile is pruned, the new one kept')
    const [kept] = listed
    t.not(kept?.token, old.token)
    t.same((await listProfiles(a.app, 'url=sweep%3Drace')).map(p => p.token), [kept?.token], 'found by its URL')
    t.same((await listProfiles(a.app, `ip=${encodeURIComponent(old.ip)}`)).map(p => p.token), [kept?.token], 'found by its IP')
  })
}
