// Two real instances (dist/server.js, deployments A and B, two ports) sharing one PostgreSQL
// profile store: one listing, search by deployment, unique tokens under concurrent load,
// PostgreSQL stopped and started under load, retention dropping partitions.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { needsPostgres, queryOn, startPostgres, type PostgresCluster } from '../helpers/postgres.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { pollLoad } from '../helpers/poll-load.js'
import { profilePartitions } from '../helpers/profile-partitions.js'
import { postgresStoredTokens } from '../helpers/stored-tokens.js'
import { waitFor } from '../helpers/wait-for.js'

// These tests wait for the clock (seconds of traffic, partitions a second wide): each loop pauses
// between its polls, so that the traffic is steady (hundreds of requests a second over two
// instances) without taking both cores from the other test files for that long.
const PAUSE_MS = 40

interface Listing { results: Array<{ token: string, deployment: string, url: string }>, store: { state: string, queued: number, dropped: number } }

/** An instance on the shared store, with its own advisors file. */
async function instance (t: Test, url: string, deployment: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), `shared-${deployment}-`))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return await startServer(t, { PROFILER_DATABASE_URL: url, PROFILER_DEPLOYMENT: deployment, DATABASE_PATH: join(dir, 'app.sqlite'), ...env })
}

async function listing (server: RunningServer, query = 'limit=100'): Promise<Listing> {
  const res = await fetch(`${server.address}/_profiler/empty/search/results?${query}`, { headers: { accept: 'application/json' } })
  if (res.status !== 200) throw new Error(`listing answered ${res.status}`)
  return await res.json() as Listing
}

/** The waits on what the instances store: a check that throws (a server restarting) counts as not yet. */
const STORED = { timeoutMs: 60_000, intervalMs: 200, retryOnError: true }

/** Every queue written (the store healthy, nothing waiting). */
async function drained (servers: RunningServer[]): Promise<void> {
  await waitFor(async () => {
    for (const server of servers) {
      const { store } = await listing(server, 'limit=1')
      if (store.state !== 'ok' || store.queued !== 0) return false
    }
    return true
  }, { ...STORED, what: 'every queue is written' })
}

// The file's own bound (tap gives each file 120 s: .taprc): its three tests (then on four servers
// and two clusters) took 121 s beside CI's hog, every wait still within its own minute.
t.setTimeout(300_000)

if (needsPostgres(t)) {
  // One cluster and one pair of instances for the first two tests: the restart test stops the
  // cluster under the pair the first test loaded (a cluster and two server starts fewer: about a
  // quarter of the file's CPU). The retention test, with instances of its own (1 s partitions),
  // runs beside the first on the same cluster; the restart waits for it to end.
  let shared: Promise<PostgresCluster> | undefined
  const cluster = async (): Promise<PostgresCluster> => await (shared ??= startPostgres(t))
  t.jobs = 2
  let retention: Promise<unknown> = Promise.resolve()

  t.test('two instances, A and B, on one store', { buffered: true }, async t => {
    const own = await cluster()
    const url = await own.createDatabase('shared')
    const [a, b] = await Promise.all([instance(t, url, 'A'), instance(t, url, 'B')])

    await t.test('A and B share one store: one listing, search by deployment, tokens unique under concurrent load', async t => {
      const fromA = (await fetch(`${a.address}/robots.txt`)).headers.get('x-debug-token')
      const fromB = (await fetch(`${b.address}/wp-login.php`)).headers.get('x-debug-token')
      await waitFor(async () => {
        const tokens = (await listing(a)).results.map(row => row.token)
        return tokens.includes(fromA ?? '') && tokens.includes(fromB ?? '')
      }, { ...STORED, what: 'both profiles are listed' })
      const rows = (await listing(b)).results
      t.match(rows.find(row => row.token === fromA), { deployment: 'A', url: /\/robots\.txt$/ })
      t.match(rows.find(row => row.token === fromB), { deployment: 'B', url: /\/wp-login\.php$/ })
      t.same((await listing(a, 'deployment=B')).results.map(row => row.token), [fromB], 'search by deployment')
      const html = await (await fetch(`${a.address}/_profiler/empty/search/results`)).text()
      t.match(html, '<th>Deployment</th>', 'the listing shows the Deployment column')

      const loads = [pollLoad(a.address, 8, { pauseMs: PAUSE_MS }), pollLoad(b.address, 8, { pauseMs: PAUSE_MS })]
      // Stopped here too if a wait fails (running loops would hold the file open until tap's timeout); stopping twice is harmless.
      t.teardown(async () => { await Promise.all(loads.map(async l => { await l.stop() })) })
      // Enough concurrent requests on both instances, however long a loaded machine takes to answer them.
      await waitFor(() => loads.every(l => l.answers.length >= 300), { timeoutMs: 60_000, what: '300 answers from each instance' })
      await Promise.all(loads.map(async l => { await l.stop() }))
      const answers = loads.flatMap(l => l.answers)
      t.ok(answers.length > 200, `${answers.length} requests`)
      t.ok(answers.every(answer => answer.status === 200), 'every request answered')
      await drained([a, b])
      const stored = await queryOn(url, 'SELECT token, deployment FROM profiles')
      t.equal(new Set(stored.map(row => row.token)).size, stored.length, 'no token stored twice')
      const dropped = (await listing(a, 'limit=1')).store.dropped + (await listing(b, 'limit=1')).store.dropped
      const storedTokens = new Set(stored.map(row => row.token))
      const missing = answers.filter(answer => !storedTokens.has(answer.token ?? ''))
      t.equal(missing.length, dropped, `every answered profile is stored, or counted as dropped (${dropped})`)
      t.ok(dropped <= 2, 'a clash is rare: each instance learns the tokens the other claims')
      const byDeployment = new Map(stored.map(row => [row.token, row.deployment]))
      for (const name of ['A', 'B'] as const) {
        const mine = loads[name === 'A' ? 0 : 1]?.answers.map(answer => answer.token ?? '') ?? []
        const storedMine = mine.filter(token => byDeployment.has(token))
        t.ok(storedMine.length >= mine.length - dropped, `${storedMine.length} of ${name}'s ${mine.length} profiles stored`)
        t.same(storedMine.filter(token => byDeployment.get(token) !== name), [], `each of them carries ${name}`)
      }
    })

    // The cluster is the retention test's too: stopped only once that test is over.
    await retention
    await t.test('PostgreSQL stopped and started under load: no request fails, the queued profiles arrive after recovery', async t => {
      // What the instances log from here on (the first test's traffic logged no fault: a fault there
      // would be counted here otherwise).
      const logged = [a, b].map(server => ({ server, from: server.log().length }))
      const logSince = ({ server, from }: typeof logged[number]): string => server.log().slice(from)
      const loads = [pollLoad(a.address, 4, { pauseMs: PAUSE_MS }), pollLoad(b.address, 4, { pauseMs: PAUSE_MS })]
      t.teardown(async () => { await Promise.all(loads.map(async l => { await l.stop() })) })
      const answeredSince = (since: number): number => loads.reduce((sum, l) => sum + l.answers.filter(answer => answer.at > since).length, 0)
      await waitFor(() => answeredSince(0) >= 50, { timeoutMs: 60_000, what: '50 answers before the fault' })
      await own.stop()
      const stoppedAt = Date.now()
      // The writers must meet the fault: wait until both report it, and requests went on meanwhile.
      await waitFor(() => logged.every(log => logSince(log).includes('the profile store cannot be written')), { timeoutMs: 60_000, what: 'both instances to log the fault' })
      await waitFor(() => answeredSince(stoppedAt) >= 100, { timeoutMs: 60_000, what: '100 answers during the fault' })
      const duringFault = answeredSince(stoppedAt)
      await own.start()
      const startedAt = Date.now()
      await waitFor(() => answeredSince(startedAt) >= 50, { timeoutMs: 60_000, what: '50 answers after the restart' })
      await Promise.all(loads.map(async l => { await l.stop() }))
      const answers = loads.flatMap(l => l.answers)
      t.ok(duringFault >= 100, `${duringFault} requests answered while PostgreSQL was down`)
      t.same(answers.filter(answer => answer.status !== 200), [], `all ${answers.length} requests answered 200`)
      await drained([a, b])
      const storedTokens = await postgresStoredTokens(url)
      t.same(answers.filter(answer => !storedTokens.has(answer.token ?? '')).length, 0, 'every profile arrived after recovery')
      for (const log of logged) {
        t.match(logSince(log), /the profile store cannot be written/, 'the fault is logged')
        t.match(logSince(log), /writable again after [\d.]+ s; 0 profile\(s\) could not be stored meanwhile/, 'and the recovery, with the count lost')
        t.equal(logSince(log).split('the profile store cannot be written').length - 1, 1, 'once')
      }
    })
    for (const server of [a, b]) await server.stop()
  })

  retention = t.test('retention drops whole time partitions', { buffered: true }, async t => {
    const url = await (await cluster()).createDatabase('retention')
    const a = await instance(t, url, 'A', { PROFILER_PARTITION: '1s', PROFILER_MAX_AGE: '3s' })
    const partitions = async (): Promise<number[]> => await profilePartitions(url)
    const l = pollLoad(a.address, 2, { pauseMs: PAUSE_MS })
    t.teardown(async () => { await l.stop() })
    await waitFor(async () => (await partitions()).length > 0, { ...STORED, what: 'the first partition is created' })
    const first = (await partitions())[0] ?? 0
    await waitFor(async () => ((await partitions())[0] ?? 0) > first + 1, { ...STORED, what: 'the oldest partitions are dropped' })
    // On a busy machine the background step may be a second or two behind the clock: the bound is
    // what it comes back to, not what it shows at one instant. So the assertions are on the read the
    // wait accepted (the wait fails the test if none comes): the load goes on creating partitions
    // until it stops, and so do the profiles still queued then, so a later read may hold one more.
    // Both on one read: a profile the writer is late with may bring back the partition of a second
    // the oldest had passed (it is younger than the max age), so the oldest is read with the count.
    let now: number[] = []
    await waitFor(async () => {
      now = await partitions()
      return now.length <= 7 && (now[0] ?? 0) > first + 1
    }, { ...STORED, what: 'about max age / partition width remain, the oldest dropped' })
    t.ok((now[0] ?? 0) > first + 1, `the oldest partitions were dropped (first was ${first}, now ${now.join(', ')})`)
    t.ok(now.length <= 7, `about max age / partition width remain: ${now.length}`)
    // Read under the load: once it stops, retention drops every profile older than the max age (3 s).
    // Waited for, not read once: on a busy machine the writer may be more than 3 s behind for a
    // moment, and the profiles it writes then are already past the max age (seen on e9cab82 too).
    let recent = 0
    await waitFor(async () => (recent = (await listing(a, 'limit=100')).results.length) > 0, { ...STORED, what: 'a recent profile in the listing' })
    t.ok(recent > 0, `the recent profiles remain (${recent})`)
    await l.stop()
    await a.stop()
  })
}
