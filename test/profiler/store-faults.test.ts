// run-suite: shares a process
// The profile store locked, unwritable, full, or impossible to open: business requests answer
// normally, the fault is logged once, what cannot be kept is counted, and the profiler resumes
// by itself when the fault clears. Each fault is a real one (another connection's lock, the
// immutable flag, a full tmpfs, a file where the store's folder should be).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Worker } from 'node:worker_threads'
import BetterSqlite3 from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../../app.js'
import type { StoreOptions } from '../../plugins/profiler/runtime/profile-store.js'
import { testConfig } from '../helpers/app.js'
import { blockedDir } from '../helpers/blocked.js'
import { businessTokens } from '../helpers/business-requests.js'
import { buildLoggedApp, type LoggedApp } from '../helpers/logged-app.js'
import { statsJson } from '../helpers/profiler.js'
import { startedWorkers } from '../helpers/started-workers.js'
import { storeCaughtUp, storeFailing } from '../helpers/store-health.js'
import { storedTokens } from '../helpers/stored-tokens.js'
import { waitFor } from '../helpers/wait-for.js'

async function buildWithLog (t: Test, env: Record<string, string>, store: Partial<StoreOptions> = {}, busyTimeoutMs = 200): Promise<LoggedApp> {
  // A write waits 200 ms for a lock here, not 5 s: the lock tests do not wait for nothing.
  return await buildLoggedApp(t, env, { profiler: { store: { retryDelayMs: 100, ...store }, busyTimeoutMs } })
}

/** Breaks the store, checks that the service carries on and the fault is reported once, clears it, checks the resumption. */
async function faultAndRecovery (t: Test, harness: LoggedApp, fault: { reason: RegExp, start: () => void, clear: () => void, payload?: object }): Promise<void> {
  const { app, logLines } = harness
  const before = await businessTokens(t, app, 3)
  await app.profileStore.flush()
  t.equal(app.profileStore.healthSnapshot().state, 'ok')

  fault.start()
  const during = await businessTokens(t, app, 20, { payload: fault.payload })
  await waitFor(async () => await storeFailing(app), { timeoutMs: 15_000, what: 'the store is seen failing' })
  during.push(...await businessTokens(t, app, 10, { payload: fault.payload }))
  t.equal(during.length, 30, 'business requests keep answering 200 during the fault')
  const listing = await app.inject({ url: '/_profiler/empty/search/results', headers: { accept: 'application/json' } })
  t.equal(listing.statusCode, 200, 'the profiles stored before stay readable')
  t.match(listing.json().store, { state: 'failing', reason: fault.reason })
  const page = await app.inject({ url: '/_profiler/empty/search/results' })
  t.match(page.body, /id="store-health">The profile store cannot be written since/, 'the listing shows the fault')
  t.equal(logLines(/profile store cannot be written/).length, 1, 'the fault is logged once')

  fault.clear()
  await waitFor(async () => await storeCaughtUp(app), { timeoutMs: 15_000, what: 'the store has caught up' })
  const stored = storedTokens(app.config.profilerDatabasePath)
  const dropped = app.profileStore.dropped
  const kept = during.filter(token => stored.has(token)).length
  t.ok(before.every(token => stored.has(token)), 'the profiles from before are intact')
  t.equal(kept + dropped, during.length, `every profile of the fault is stored (${kept}) or counted as dropped (${dropped})`)
  const recovered = logLines(/profile store is writable again/)
  t.equal(recovered.length, 1, 'the recovery is logged once')
  t.match(recovered[0], `${dropped} profile(s) could not be stored meanwhile`)
  t.equal(logLines(/profile store cannot be written/).length, 1, 'and the fault still only once')
  const after = await businessTokens(t, app, 3)
  await app.profileStore.flush()
  t.ok(after.every(token => storedTokens(app.config.profilerDatabasePath).has(token)), 'new profiles are stored again')
}

/** An operator's `sqlite3` shell holding a write transaction on the store, as a fault. */
function writeLock (t: Test, path: string): { reason: RegExp, start: () => void, clear: () => void } {
  const locker = new BetterSqlite3(path)
  t.teardown(() => { if (locker.inTransaction) locker.exec('ROLLBACK'); locker.close() })
  return { reason: /database is locked/, start: () => { locker.exec('BEGIN IMMEDIATE') }, clear: () => { locker.exec('ROLLBACK') } }
}

t.test('locked by another process holding a write transaction: kept in memory, nothing lost', async t => {
  const harness = await buildWithLog(t, {})
  await faultAndRecovery(t, harness, writeLock(t, harness.app.config.profilerDatabasePath))
  t.equal(harness.app.profileStore.dropped, 0, 'a queue of 10,000 held the whole fault')
})

t.test('a lock held for less than the busy timeout: the listing says the store is waiting while it lasts', async t => {
  // The write waits up to 30 s for the lock here: the store is not failing yet, but it is not writing.
  // The writer thread: an inline writer would hold the request thread for the lock's duration.
  const app = await buildApp(testConfig(t, { PROFILER_WRITER: 'thread' }), { profiler: { busyTimeoutMs: 30_000 } })
  t.teardown(async () => { await app.close() })
  const listing = async (): Promise<{ state: string, reason: string | null, queued: number }> =>
    (await app.inject({ url: '/_profiler/empty/search/results?limit=1', headers: { accept: 'application/json' } })).json().store
  await businessTokens(t, app, 3)
  await app.profileStore.flush()
  const lock = writeLock(t, app.config.profilerDatabasePath)
  lock.start()
  const during = await businessTokens(t, app, 5)
  await waitFor(async () => (await listing()).state === 'failing', { timeoutMs: 15_000, what: 'the listing to say the store is not writing' })
  t.match(await listing(), { state: 'failing', reason: /^a write has waited \d+\.\d s for the store \(locked by another connection, or too slow\)$/ })
  const page = await app.inject({ url: '/_profiler/empty/search/results' })
  t.match(page.body, /id="store-health">/, 'the HTML listing shows it too')
  lock.clear()
  await waitFor(async () => { const now = await listing(); return now.state === 'ok' && now.queued === 0 }, { timeoutMs: 15_000, what: 'the store to catch up' })
  const stored = storedTokens(app.config.profilerDatabasePath)
  t.ok(during.every(token => stored.has(token)), 'every profile of the wait is stored')
})

t.test('locked with a small queue: what overflows is dropped and counted', async t => {
  const harness = await buildWithLog(t, {}, { maxQueue: 25 })
  await faultAndRecovery(t, harness, writeLock(t, harness.app.config.profilerDatabasePath))
  t.equal(harness.app.profileStore.dropped, 5, '30 during the fault, 25 kept')
})

t.test('a profile the store refuses (a NOT NULL constraint) is set aside and counted; the rest of its batch is stored', async t => {
  // The writer proves which profile it is (each written alone) and sets that one aside: the batch
  // is neither dropped whole nor retried for ever (issue #20, fault rules). One batch: the flush
  // delay is longer than the test, flush() hands everything over at once.
  const { app, logLines } = await buildWithLog(t, {}, { flushDelayMs: 600_000 })
  const before = await businessTokens(t, app, 2)
  const bad = { id: app.profileStore.nextId(Date.now()), token: 'bad000', parentToken: null, type: 'request', ip: null, method: 'GET', url: 'http://x/', statusCode: 200, durationMs: 1, route: null, panels: '{}' }
  app.profileStore.reserveToken('bad000')
  t.ok(app.profileStore.enqueue(bad as unknown as Parameters<FastifyInstance['profileStore']['enqueue']>[0]))
  const after = await businessTokens(t, app, 2)
  await app.profileStore.flush()
  t.equal(app.profileStore.dropped, 1, 'the bad one is counted')
  t.match(app.profileStore.healthSnapshot(), { state: 'ok', queued: 0 }, 'not a store fault, nothing left to retry')
  t.match(logLines(/profile\(s\) and \d+ request\(s\) of the statistics dropped so far/)[0], /profile bad000 could not be stored: NOT NULL constraint failed: profiles\.ip/)
  t.equal(logLines(/profile store cannot be written/).length, 0)
  const stored = storedTokens(app.config.profilerDatabasePath)
  t.ok([...before, ...after].every(token => stored.has(token)) && !stored.has('bad000'), 'the rest of its batch is stored')
  t.match(await setAsideLine(app), { count: 1, kept: 0 }, 'its request is counted in the statistics, as not kept (issue 37)')
})

/** The statistics' line of the set-aside profiles of these tests (no route matched, a 200). */
async function setAsideLine (app: FastifyInstance): Promise<Record<string, any> | undefined> {
  return (await statsJson(app)).routes.find(line => line.route === null && line.status === 200)
}

/** The JSON listing's store health (the listing reads through the reader, apart from the writer). */
async function listedHealth (app: FastifyInstance): Promise<Record<string, unknown>> {
  const res = await app.inject({ url: '/_profiler/empty/search/results', headers: { accept: 'application/json' } })
  if (res.statusCode !== 200) throw new Error(`listing answered ${res.statusCode}: ${res.body}`)
  return res.json().store
}

t.test('a writer thread that dies is started again with a back-off; the store reports failing meanwhile; its open batch is stored, not lost', async t => {
  // The real threads of a real store, seen as Node creates them ('worker' event, no stand-in).
  const workers = startedWorkers(t)
  // A write waits up to a minute for a lock: the batch stays open in the writer until it is killed.
  const { app, logLines } = await buildWithLog(t, { PROFILER_WRITER: 'thread' }, { retryDelayMs: 100 }, 60_000)
  // The writer thread starts in the plugin before the reader thread opens the store.
  t.equal(workers.length, 2, 'a writer thread and a reader thread')
  const before = await businessTokens(t, app, 3)
  await app.profileStore.flush()
  t.equal((await listedHealth(app)).state, 'ok')

  const locker = new BetterSqlite3(app.config.profilerDatabasePath)
  t.teardown(() => { if (locker.inTransaction) locker.exec('ROLLBACK'); locker.close() })
  /** Kills `worker` while it holds a batch (waiting for the lock), and waits until it is gone. */
  const kill = async (worker: Worker): Promise<void> => {
    const exited = new Promise(resolve => worker.once('exit', resolve))
    worker.terminate().catch(() => {})
    // A thread waiting inside SQLite ends when the call returns: let it return, uncommitted.
    locker.exec('ROLLBACK')
    await exited
    locker.exec('BEGIN IMMEDIATE')
  }
  locker.exec('BEGIN IMMEDIATE')
  const open = await businessTokens(t, app, 5)
  const handedOver = app.profileStore.flush()
  await kill(workers[0] as Worker)
  await handedOver
  t.match(await listedHealth(app), { state: 'failing', reason: /^the writer thread ended \(exit code 1\); it is started again in 1 s$/ }, 'failing at once, in the listing\'s JSON')
  const during = await businessTokens(t, app, 5)

  // Started again after 1 s; killed again before it could write: the next delay is 2 s.
  await waitFor(() => workers.length === 3, { timeoutMs: 10_000, what: 'the writer thread started again' })
  await kill(workers[2] as Worker)
  t.match(await listedHealth(app), { state: 'failing', reason: /started again in 2 s$/ }, 'the back-off doubles')

  locker.exec('ROLLBACK')
  await waitFor(async () => await storeCaughtUp(app), { timeoutMs: 20_000, what: 'a third thread to store what was kept' })
  t.equal(workers.length, 4, 'started twice again')
  const stored = storedTokens(app.config.profilerDatabasePath)
  t.ok([...before, ...open, ...during].every(token => stored.has(token)), 'every profile is stored, the open batch\'s too')
  t.equal(app.profileStore.dropped, 0, 'none lost')
  t.equal(logLines(/profile store cannot be written/).length, 1, 'the fault logged once')
  t.match(logLines(/profile store is writable again/)[0] ?? '', /0 profile\(s\) could not be stored meanwhile/)
  const after = await businessTokens(t, app, 2)
  await app.profileStore.flush()
  t.ok(after.every(token => storedTokens(app.config.profilerDatabasePath).has(token)), 'the new thread goes on')
})

t.test('a reader thread that dies is started again after 1 s: its pages answer 503 naming the end meanwhile, then 200', async t => {
  const workers = startedWorkers(t)
  // A retry delay far above the test's length: the reader is started again by its thread's back-off, not reopened.
  const { app, logLines } = await buildWithLog(t, { PROFILER_WRITER: 'thread' }, { retryDelayMs: 600_000 })
  t.equal(workers.length, 2, 'a writer thread and a reader thread')
  const before = await businessTokens(t, app, 3)
  await app.profileStore.flush()
  const listing = async (): Promise<{ statusCode: number, message: string }> => {
    const res = await app.inject({ url: '/_profiler/empty/search/results', headers: { accept: 'application/json' } })
    return { statusCode: res.statusCode, message: res.statusCode === 200 ? '' : String(res.json().message) }
  }
  t.equal((await listing()).statusCode, 200)

  const reader = workers[1] as Worker
  const exited = new Promise(resolve => reader.once('exit', resolve))
  await reader.terminate()
  await exited
  const during = await listing()
  t.same(during, { statusCode: 503, message: 'The profile store is unavailable: the profile reader thread ended (exit code 1); it is started again in 1 s' }, 'a 503 naming the thread\'s end, not a 500')
  const profile = await app.inject({ url: `/_profiler/${before[0] ?? ''}`, headers: { accept: 'application/json' } })
  t.equal(profile.statusCode, 503, 'a profile page too')
  const business = await businessTokens(t, app, 3)
  t.equal(business.length, 3, 'business requests answer meanwhile')

  await waitFor(() => workers.length === 3, { timeoutMs: 10_000, what: 'the reader thread started again' })
  await waitFor(async () => (await listing()).statusCode === 200, { timeoutMs: 10_000, what: 'the listing answering again' })
  await app.profileStore.flush()
  const found = await app.inject({ url: `/_profiler/${business[0] ?? ''}`, headers: { accept: 'application/json' } })
  t.equal(found.statusCode, 200, 'a profile stored during the gap is read by the new thread')
  t.equal(workers.length, 3, 'one thread started again, the writer untouched')
  t.equal(logLines(/profile store cannot be read/).length, 1, 'the outage logged once')
  t.equal(logLines(/profile store can be read again/).length, 1, 'and its end')
  t.equal(app.profileStore.healthSnapshot().state, 'ok', 'the write health never saw it')
})

/** A capture as the recorder queues it, for the writer thread to shape (`overrides` break it on purpose). */
function capture (app: FastifyInstance, token: string, overrides: Record<string, unknown>): Parameters<FastifyInstance['profileStore']['enqueue']>[0] {
  app.profileStore.reserveToken(token)
  return {
    kind: 'capture',
    id: app.profileStore.nextId(Date.now()),
    token,
    ip: '127.0.0.1',
    method: 'GET',
    rawUrl: 'http://localhost/x',
    statusCode: 200,
    totalMs: 1,
    handlerStartMs: 0.2,
    sendStartMs: 0.8,
    route: null,
    matched: null,
    routingFailure: null,
    params: {},
    query: {},
    body: undefined,
    requestHeaders: {},
    responseHeaders: {},
    responseText: undefined,
    error: null,
    heapUsedBytes: 0,
    droppedProfiles: 0,
    ...overrides
  } as Parameters<FastifyInstance['profileStore']['enqueue']>[0]
}

t.test('a capture the writer thread cannot shape is dropped and counted; the rest of its batch is stored', async t => {
  const { app, logLines } = await buildWithLog(t, {})
  const [good] = await businessTokens(t, app, 1)
  t.ok(app.profileStore.enqueue(capture(app, 'bad001', { error: { name: 'Error', message: 'no chain' } })))
  const [after] = await businessTokens(t, app, 1)
  await app.profileStore.flush()
  t.equal(app.profileStore.dropped, 1, 'counted')
  t.equal(app.profileStore.healthSnapshot().state, 'ok', 'not a store fault')
  t.match(logLines(/profile\(s\) and \d+ request\(s\) of the statistics dropped so far/)[0], /a profile could not be collected: /)
  const stored = storedTokens(app.config.profilerDatabasePath)
  t.ok(stored.has(good ?? '') && stored.has(after ?? '') && !stored.has('bad001'), 'the store carries on')
  t.match(await setAsideLine(app), { count: 1, kept: 0 }, 'its request is counted in the statistics, as not kept (issue 37)')
})

t.test('a batch that cannot be copied to the writer is dropped and counted, nothing hangs', async t => {
  for (const [writer, name] of [['thread', 'writer thread'], ['inline', 'inline writer']] as const) {
    await t.test(name, async t => {
      const { app, logLines } = await buildWithLog(t, { PROFILER_WRITER: writer })
      t.ok(app.profileStore.enqueue(capture(app, 'bad002', { body: { handler: () => {} } })))
      await app.profileStore.flush()
      t.equal(app.profileStore.dropped, 1, 'counted')
      t.match(logLines(/could not be written/)[0], `could not be handed to the ${name}`)
      const [after] = await businessTokens(t, app, 1)
      await app.profileStore.flush()
      t.ok(storedTokens(app.config.profilerDatabasePath).has(after ?? ''), 'the next batch is stored')
      t.match(await setAsideLine(app), { count: 1, kept: 0 }, 'its request is counted in the statistics, as not kept (issue 37)')
    })
  }
})

function chattrWorks (dir: string): boolean {
  const probe = join(dir, 'chattr-probe')
  writeFileSync(probe, '')
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' })
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' })
    return true
  } catch {
    return false
  } finally {
    rmSync(probe, { force: true })
  }
}

t.test('unwritable (the immutable flag on the store and its WAL)', async t => {
  const harness = await buildWithLog(t, {})
  const path = harness.app.config.profilerDatabasePath
  if (!chattrWorks(join(path, '..'))) return t.plan(0, 'chattr +i is not available here (needs root and a file system with attributes)')
  const files = [path, `${path}-wal`]
  const setImmutable = (on: boolean): void => { execFileSync('chattr', [on ? '+i' : '-i', ...files]) }
  t.teardown(() => { try { setImmutable(false) } catch {} })
  await faultAndRecovery(t, harness, {
    reason: /disk I\/O error|readonly|not permitted/i,
    start: () => { setImmutable(true) },
    clear: () => { setImmutable(false) }
  })
})

t.test('full (the store on a small tmpfs filled to the last block)', async t => {
  const mount = mkdtempSync(join(tmpdir(), 'profiler-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount], { stdio: 'ignore' })
  } catch {
    rmSync(mount, { recursive: true, force: true })
    return t.plan(0, 'cannot mount a tmpfs here (needs root): the full-disk case is not exercised')
  }
  t.teardown(() => {
    execFileSync('umount', ['-l', mount])
    rmSync(mount, { recursive: true, force: true })
  })
  mkdirSync(join(mount, 'var'))
  const harness = await buildWithLog(t, { PROFILER_DATABASE_PATH: join(mount, 'var', 'profiler.sqlite') })
  const filler = join(mount, 'filler')
  await faultAndRecovery(t, harness, {
    reason: /database or disk is full/,
    start: () => {
      const { bavail, bsize } = statfsSync(mount)
      writeFileSync(filler, Buffer.alloc(bavail * bsize))
    },
    clear: () => { rmSync(filler) },
    // Big enough profiles that the WAL must grow past what it already holds.
    payload: { note: 'x'.repeat(60 * 1024) }
  })
})

t.test('impossible to open at start (a file where its folder should be): the service starts, the profiler catches up later', async t => {
  const dir = blockedDir(t)
  const { app, logLines } = await buildWithLog(t, { PROFILER_DATABASE_PATH: join(dir, 'blocked', 'var', 'profiler.sqlite') })
  const tokens = await businessTokens(t, app, 5)
  t.ok(tokens.every(token => /^[0-9a-f]{6}$/.test(token)), 'requests are still answered with tokens')
  const listing = await app.inject({ url: '/_profiler/empty/search/results', headers: { accept: 'application/json' } })
  t.equal(listing.statusCode, 503)
  t.match(listing.json().message, /^The profile store is unavailable: cannot open the SQLite database .*blocked\/var\/profiler\.sqlite/)
  // The writer thread reports its own failure (asynchronously); the read connection's is reported apart.
  await waitFor(() => logLines(/profile store cannot be written/).length > 0, { what: 'the writer to report the fault' })
  t.equal(logLines(/profile store cannot be written/).length, 1, 'logged once')
  t.equal(logLines(/profile store cannot be read/).length, 1, 'the read connection\'s failure, once')

  rmSync(join(dir, 'blocked'))
  await waitFor(async () => {
    await app.profileStore.flush()
    const res = await app.inject({ url: '/_profiler/empty/search/results?limit=100', headers: { accept: 'application/json' } })
    return res.statusCode === 200 && res.json().results.length >= 5
  }, { timeoutMs: 15_000, what: 'the profiles are listed' })
  const stored = storedTokens(app.config.profilerDatabasePath)
  t.ok(tokens.every(token => stored.has(token)), 'every profile of the outage was kept and stored')
  t.ok(stored.size >= 6, 'with the 503s of the listing itself (profiler pages that failed are recorded)')
  t.equal(logLines(/profile store is writable again/).length, 1)
  t.equal(logLines(/profile store can be read again/).length, 1)
})
