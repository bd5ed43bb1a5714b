// run-suite: shares a process
// Read faults, classified by the engine that has them: the profiler's SQLite file corrupted while
// the server runs answers the profile store's 503 (never the advisors' database's), its reader is
// reopened at most once per retry delay; and the advisors' database down is never the profiler's.
import { closeSync, openSync, readSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { expectAdvisorsUnavailable } from '../helpers/app.js'
import { blockedDir } from '../helpers/blocked.js'
import { buildLoggedApp, type LoggedApp } from '../helpers/logged-app.js'
import { startedWorkers } from '../helpers/started-workers.js'
import { storedTokens } from '../helpers/stored-tokens.js'
import { waitFor } from '../helpers/wait-for.js'

const RETRY_DELAY_MS = 1500

async function buildWithLog (t: Test, env: Record<string, string>): Promise<LoggedApp> {
  // The real threads (writer and reader), as in production.
  return await buildLoggedApp(t, { PROFILER_WRITER: 'thread', ...env }, { profiler: { store: { retryDelayMs: RETRY_DELAY_MS } } })
}

async function poll (app: FastifyInstance, payload: object = {}): Promise<{ statusCode: number, token: string }> {
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload })
  return { statusCode: res.statusCode, token: res.headers['x-debug-token'] as string }
}

async function page (app: FastifyInstance, path: string): Promise<{ statusCode: number, message: string }> {
  const res = await app.inject({ url: `/_profiler${path}`, headers: { accept: 'application/json' } })
  return { statusCode: res.statusCode, message: res.statusCode === 200 ? '' : String(res.json().message) }
}

/**
 * Overwrites the lower half of the pages that hold the panels of the stored profiles (overflow
 * pages of profile_blocks, written first: the oldest profiles') with random bytes, after moving
 * everything from the WAL into the file and giving back its free pages. The writer appends and
 * never reads them again; and with no free page to fill, the pruning does not move the file's
 * last pages (the upper half) into the lower ones. Returns a function that writes the original bytes back.
 */
function corruptPanels (path: string): () => void {
  const db = new BetterSqlite3(path)
  let pages: number[]
  let pageSize: number
  try {
    db.pragma('incremental_vacuum')
    db.pragma('wal_checkpoint(TRUNCATE)')
    pageSize = db.pragma('page_size', { simple: true }) as number
    const overflow = db.prepare("SELECT pageno FROM dbstat WHERE name = 'profile_blocks' AND pagetype = 'overflow' ORDER BY pageno").pluck().all() as number[]
    pages = overflow.slice(0, Math.floor(overflow.length / 2))
  } finally {
    db.close()
  }
  if (pages.length === 0) throw new Error('no overflow page to corrupt')
  const fd = openSync(path, 'r+')
  const originals = pages.map(page => {
    const original = Buffer.alloc(pageSize)
    readSync(fd, original, 0, pageSize, (page - 1) * pageSize)
    writeSync(fd, randomBytes(pageSize), 0, pageSize, (page - 1) * pageSize)
    return { page, original }
  })
  closeSync(fd)
  return () => {
    const fd = openSync(path, 'r+')
    for (const { page, original } of originals) writeSync(fd, original, 0, pageSize, (page - 1) * pageSize)
    closeSync(fd)
  }
}

t.test('the profiler\'s SQLite file corrupted while the server runs: 503 "The profile store is unavailable", reopened at most once per retry delay, never the advisors\' database', async t => {
  // Reader threads started are the reader's (re)open attempts: seen as Node creates them.
  const workers = startedWorkers(t)
  const { app, logLines } = await buildWithLog(t, {})
  // Profiles whose panels (a 20 KB body that does not compress: their blocks are) spill into
  // overflow pages: the oldest five to corrupt, five more after them.
  const old: string[] = []
  for (let i = 0; i < 10; i++) {
    old.push((await poll(app, { note: randomBytes(15_000).toString('base64') })).token)
    await app.profileStore.flush()
  }
  t.equal((await page(app, `/${old[0] ?? ''}`)).statusCode, 200)

  const restore = corruptPanels(app.config.profilerDatabasePath)
  // A written batch makes the reader drop its page cache: what it reads next comes from the file.
  const during = [(await poll(app)).token]
  await app.profileStore.flush()
  const corrupt = await page(app, `/${old[0] ?? ''}`)
  t.equal(corrupt.statusCode, 503, 'a profile on a corrupt page')
  t.match(corrupt.message, /^The profile store is unavailable: database disk image is malformed/)

  // Business requests go on (each written batch is a chance to reopen the reader); the listing is
  // read meanwhile, and each time it answers (the reader was reopened) the corrupt profile is read
  // again, which closes the reader again.
  const attemptsBefore = workers.length
  const loopStart = Date.now()
  let reopened = 0
  while (Date.now() - loopStart < 2 * RETRY_DELAY_MS + 500) {
    const business = await poll(app)
    t.equal(business.statusCode, 200, 'the business routes answer')
    during.push(business.token)
    await app.profileStore.flush()
    const listing = await page(app, '/empty/search/results')
    if (listing.statusCode !== 200) {
      t.match(listing, { statusCode: 503, message: /^The profile store is unavailable: / }, 'the listing while the reader is closed')
      continue
    }
    reopened++
    t.match(await page(app, `/${old[1] ?? ''}`), { statusCode: 503, message: /^The profile store is unavailable: / }, 'the corrupt profile')
  }
  const elapsed = Date.now() - loopStart
  const attempts = workers.length - attemptsBefore
  t.ok(attempts >= 1, `reopened (${attempts} attempt(s))`)
  t.ok(attempts <= Math.floor(elapsed / RETRY_DELAY_MS) + 1, `at most once per retry delay: ${attempts} attempt(s) in ${elapsed} ms, for ${during.length} written batches`)
  t.ok(reopened >= 1, `the listing answers once reopened (its pages are not corrupt): ${reopened} time(s)`)

  t.same(logLines(/Database .* is unavailable|advisor database/i), [], 'nothing logged as the advisors\' database')
  t.equal((await poll(app)).statusCode, 200, 'whose poll stays ok')
  // Once per outage: here an outage per reopening (the listing reads again, the profile fails again).
  const failures = logLines(/profile store cannot be read/)
  t.ok(failures.length >= 1 && failures.length <= attempts + 1, `the profile store's fault, logged once per reopening at most (${failures.length})`)
  t.match(failures[0], /database disk image is malformed/)

  restore()
  await waitFor(async () => (await page(app, `/${old[1] ?? ''}`)).statusCode === 200, { timeoutMs: 10_000, what: 'the profile to be read again' })
  t.equal(logLines(/profile store can be read again/).length, failures.length, 'each followed by its recovery')
  await app.profileStore.flush()
  const stored = storedTokens(app.config.profilerDatabasePath)
  t.ok([...old, ...during].every(token => stored.has(token)), 'the writer went on: every profile is stored')
  t.equal(app.profileStore.dropped, 0)
})

t.test('the advisors\' database down is never the profiler\'s: the profile store stays ok and its fault is not logged', async t => {
  const dir = blockedDir(t)
  const { app, logLines } = await buildWithLog(t, { DATABASE_PATH: join(dir, 'blocked', 'app.sqlite') })
  const lookup = await expectAdvisorsUnavailable(t, app)
  await app.profileStore.flush()
  const listing = await app.inject({ url: '/_profiler/empty/search/results?limit=100', headers: { accept: 'application/json' } })
  t.equal(listing.statusCode, 200)
  t.match(listing.json().store, { state: 'ok', dropped: 0 })
  t.ok((listing.json().results as Array<{ token: string }>).some(row => row.token === lookup.headers['x-debug-token']), 'the 503 is profiled')
  t.same(logLines(/profile store/), [], 'nothing logged about the profile store')
  t.equal(logLines(/Database .* is unavailable/).length, 1, 'the advisors\' outage, once')
})
