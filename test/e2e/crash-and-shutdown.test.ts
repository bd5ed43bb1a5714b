// run-suite: shares a process
// dist/server.js under load, stopped hard (SIGKILL) and gracefully (SIGTERM).
import { connect } from 'node:net'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t, { type Test } from 'tap'
import { freshDir } from '../helpers/dirs.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { storedTokens } from '../helpers/stored-tokens.js'
import { waitFor } from '../helpers/wait-for.js'
import { pollLoad } from '../helpers/poll-load.js'

/** Profiles answered longer ago than this before a SIGKILL must have survived it (docs/security.md, "Crashes, shutdown and store faults"). */
const KILL_LOSS_BOUND_MS = 500
/**
 * The kill comes at a moment the store is seen keeping up: every answer older than this already
 * stored. The bound is about what a crash loses (the queued profiles and the batch being committed),
 * not about a machine too busy for the writer thread: beside CI's CPU hog it lagged past the bound
 * (three profiles answered more than 500 ms before the kill were missing).
 */
const KEEPING_UP_MS = 250

// Four loops polling with a short pause: a few hundred requests a second, the writer always has a
// batch in hand, and the other test files keep their share of the cores.
const LOAD = { endOnFailure: true, pauseMs: 10 }

/** Database files of their own: a second start in the same test must find them again. */
function databaseEnv (t: Test): Record<string, string> {
  const dir = freshDir(t, 'databases-')
  return { DATABASE_PATH: join(dir, 'app.sqlite'), PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite') }
}

function integrity (path: string): string {
  // Not read-only: opening replays the WAL the killed process left, as the next start would.
  const db = new BetterSqlite3(path)
  try {
    return db.pragma('integrity_check', { simple: true }) as string
  } finally {
    db.close()
  }
}

/** What the profile store's own count says (migration 012), and the rows it holds. */
function countAndRows (path: string): { counted: number, rows: number } {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return db.prepare('SELECT (SELECT profiles FROM profile_counts) AS counted, (SELECT count(*) FROM profiles) AS rows').get() as { counted: number, rows: number }
  } finally {
    db.close()
  }
}

t.test('kill -9 under load: both databases intact, the service serves again, only the last moments are missing', async t => {
  const env = databaseEnv(t)
  const server = await startServer(t, env)
  const traffic = pollLoad(server.address, 4, LOAD)
  // Enough answers old enough to be past the loss bound, so the bound is really tested.
  const settledBefore = (now: number): number => traffic.answers.filter(answer => answer.at < now - 2 * KILL_LOSS_BOUND_MS).length
  await waitFor(() => settledBefore(Date.now()) >= 150, { timeoutMs: 30_000, what: 'answers older than the loss bound' })
  let storedBefore = new Set<string>()
  await waitFor(() => {
    const now = Date.now()
    storedBefore = storedTokens(env.PROFILER_DATABASE_PATH ?? '')
    return traffic.answers.every(answer => answer.token === null || answer.at >= now - KEEPING_UP_MS || storedBefore.has(answer.token))
  }, { timeoutMs: 30_000, what: `the store to keep up (every answer older than ${KEEPING_UP_MS} ms stored)` })
  const killedAt = Date.now()
  t.equal(await server.stop('SIGKILL'), null, 'killed')
  await traffic.stop()
  const answered = traffic.answers.filter(answer => answer.token !== null)
  t.ok(answered.length > 100, `${answered.length} requests answered before the kill`)

  t.equal(integrity(env.DATABASE_PATH ?? ''), 'ok', 'business database: integrity_check ok')
  t.equal(integrity(env.PROFILER_DATABASE_PATH ?? ''), 'ok', 'profile store: integrity_check ok')
  const afterKill = countAndRows(env.PROFILER_DATABASE_PATH ?? '')
  t.equal(afterKill.counted, afterKill.rows, `the store's profile count is its rows: the batch the kill cut short went with its count (${afterKill.rows})`)

  const restarted: RunningServer = await startServer(t, env)
  const poll = await fetch(`${restarted.address}/monitor/MonitorPooling`, { method: 'POST' })
  t.equal(poll.status, 200, 'serves after the restart')
  const listing = await fetch(`${restarted.address}/_profiler/empty/search/results?limit=5`, { headers: { accept: 'application/json' } })
  t.equal(listing.status, 200, 'the profiler reads its store')
  t.equal(await restarted.stop(), 0)

  const stored = storedTokens(env.PROFILER_DATABASE_PATH ?? '')
  t.same([...storedBefore].filter(token => !stored.has(token)), [], `every profile committed before the kill is still stored (${storedBefore.size})`)
  const settled = answered.filter(answer => answer.at < killedAt - KILL_LOSS_BOUND_MS)
  const lost = settled.filter(answer => answer.token !== null && !stored.has(answer.token))
  t.same(lost, [], `every profile answered more than ${KILL_LOSS_BOUND_MS} ms before the kill is stored (${settled.length})`)
  const missing = answered.filter(answer => answer.token !== null && !stored.has(answer.token))
  const late = missing.filter(answer => answer.at >= killedAt - KILL_LOSS_BOUND_MS)
  t.same(missing.map(answer => answer.at), late.map(answer => answer.at), `${missing.length} missing, all answered in the last ${KILL_LOSS_BOUND_MS} ms before the kill`)
})

/**
 * Sends a request's head and half its body now; the rest when `finish()` is called, followed on the
 * same connection by a status poll. Resolves with the raw answers once the server closes the connection.
 */
function slowRequest (address: string): { finish: () => void, answer: Promise<string> } {
  const { port } = new URL(address)
  const socket = connect(Number(port), '127.0.0.1')
  const body = '{"code":"ADV1001"}'
  socket.write(`POST /ccenter/getConseillerByCode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 8)}`)
  let raw = ''
  socket.on('data', chunk => { raw += String(chunk) })
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('close', () => resolve(raw))
    socket.on('error', reject)
  })
  const next = 'POST /monitor/MonitorPooling HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n'
  return { finish: () => { socket.write(body.slice(8) + next) }, answer }
}

// The SIGTERM test's server is started at load, while the first test's starts (a start is seconds
// of CPU); it waits, idle, until its test puts it under load.
const sigtermEnv = databaseEnv(t)
const sigtermServer = startServer(t, sigtermEnv)
// A start that fails is said by the test that awaits it; no unhandled rejection before then.
sigtermServer.catch(() => {})

t.test('SIGTERM under load: in-flight requests complete and no answered profile is lost', async t => {
  const env = sigtermEnv
  const server = await sigtermServer
  const traffic = pollLoad(server.address, 4, LOAD)
  await waitFor(() => traffic.answers.length >= 100, { timeoutMs: 30_000, what: '100 answered requests' })
  const inFlight = slowRequest(server.address)
  // The server has read the request's head once it logs it (the load only polls the other route).
  await waitFor(() => /"url":"\/ccenter\/getConseillerByCode".*incoming request|incoming request.*"url":"\/ccenter\/getConseillerByCode"/.test(server.log()), { timeoutMs: 30_000, what: 'the slow request to be read' })
  const stopped = server.stop('SIGTERM')
  await waitFor(() => /SIGTERM received/.test(server.log()), { what: 'the server to start shutting down' })
  inFlight.finish()
  const raw = await inFlight.answer
  const [first, second] = raw.split(/(?=HTTP\/1\.1 )/)
  t.match(first, /^HTTP\/1\.1 200 OK/, 'the request in flight at SIGTERM is answered')
  t.match(first, /"lastName":"Martin"/)
  const token = /x-debug-token: ([0-9a-f]{6})/i.exec(first ?? '')?.[1]
  t.ok(token !== undefined, 'with its debug token')
  t.equal(await stopped, 0, 'exits 0')
  await traffic.stop()

  const stored = storedTokens(env.PROFILER_DATABASE_PATH ?? '')
  const answered = traffic.answers.filter(answer => answer.token !== null)
  t.ok(answered.length > 50, `${answered.length} requests answered`)
  t.same(answered.filter(answer => !stored.has(answer.token ?? '')), [], 'every answered request is in the store')
  t.ok(stored.has(token ?? ''), 'the in-flight one too')
  const refused = traffic.answers.filter(answer => answer.token === null)
  t.same(refused.filter(answer => answer.status !== 503), [], `requests of the load arriving while closing are refused with 503 (${refused.length})`)
  t.match(second, /^HTTP\/1\.1 503 /, 'a request sent after SIGTERM behind the one in flight, on its connection, is refused with 503')
  t.match(second, /\r\nconnection: close\r\n/i, 'and the connection is closed')
  t.match(server.log(), /SIGTERM received: shutting down/)
})
