// Issue 20: the profile store locked by another process while clients send 1 MiB bodies. Before,
// each queued profile held its whole parsed body: RSS reached 5.4 GB at the default heap, and with
// --max-old-space-size=512 the process died ("JavaScript heap out of memory") after ~490 captures.
// Now a large body waits in the queue as the 64 KiB preview the store keeps, and the queue is
// bounded in bytes too: memory stays bounded and, once the lock is gone, every profile is stored.
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { freshDir } from '../helpers/dirs.js'
import { pollLoad } from '../helpers/poll-load.js'
import { rssOf } from '../helpers/process-memory.js'
import { startServer } from '../helpers/server.js'
import { SOAK_BOUNDS } from '../helpers/soak/bounds.js'
import { storedTokens } from '../helpers/stored-tokens.js'
import { waitFor } from '../helpers/wait-for.js'

/** More than the ~490 that ended the old process at a 512 MB heap; fewer than the queue's byte bound holds as previews. */
const BODIES = 600
const CLIENTS = 8
/**
 * Just under the 1 MiB body limit, in the two shapes a body's preview is made from: one value longer
 * than the redactor's scan limit (the reproduction: the value is cut first), and many short values,
 * none cut (the preview is the start of the whole text). Before the preview was copied, the second
 * kept each whole text alive in the queue behind its 64 KiB slice: RSS 955 MiB at the default heap.
 */
const BODIES_BY_SHAPE = {
  'one long value': JSON.stringify({ code: 'ADV1001', pad: 'x'.repeat(1_048_000) }),
  'many short values': JSON.stringify({ code: 'ADV1001', pad: Array.from({ length: 1040 }, (_, i) => `${i}`.padEnd(1000, 'x')) })
}
/** The server's RSS at most, all along: the soak's documented bound (measured here: 330-350 MiB; before: 600 MiB and more, or the heap's end). */
const MAX_RSS_BYTES = SOAK_BOUNDS.maxRssBytes

interface StoreHealth { state: string, dropped: number, queued: number }

/** The listing's store health, asked again while the page is shed (a 503 past MAX_EVENT_LOOP_DELAY when the machine is loaded). */
async function health (address: string): Promise<StoreHealth> {
  let shed: unknown
  await waitFor(async () => {
    const res = await fetch(`${address}/_profiler/empty/search/results?limit=1`, { headers: { accept: 'application/json' } })
    const body = await res.json() as { store?: StoreHealth }
    if (res.status === 200 && body.store !== undefined) {
      shed = body.store
      return true
    }
    if (res.status !== 503) throw new Error(`the listing answered ${res.status}: ${JSON.stringify(body)}`)
    return false
  }, { timeoutMs: 30_000, what: 'the listing to answer (not shed)' })
  return shed as StoreHealth
}

async function post (address: string, agent: Agent, body: Buffer): Promise<{ status: number, token: string | undefined }> {
  return await new Promise((resolve, reject) => {
    const req = request(new URL('/ccenter/getConseillerByCode', address), { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, res => {
      res.resume()
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, token: res.headers['x-debug-token'] as string | undefined }) })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

// Each shape at one heap (the suite's time): a preview that holds more than it counts overflows
// either (the default heap's RSS past the bound, or the 512 MB heap's end).
const RUNS: Array<{ heap: number | undefined, shape: keyof typeof BODIES_BY_SHAPE }> = [
  { heap: undefined, shape: 'many short values' },
  { heap: 512, shape: 'one long value' }
]

// The two runs side by side: each has its own server, store, lock and RSS samples, and each
// server's main thread is the bottleneck (one core each), so serial runs left a core idle.
t.jobs = RUNS.length
for (const { heap, shape } of RUNS) {
  const BODY = BODIES_BY_SHAPE[shape]
  // Encoded once: the same bytes on the wire, without a 1 MiB UTF-8 encoding per request.
  const BODY_BYTES = Buffer.from(BODY)
  t.test(`the store locked while ${BODIES} bodies of 1 MiB (${shape}) arrive (${heap === undefined ? 'default heap' : `--max-old-space-size=${heap}`}): memory bounded, nothing lost`, { buffered: true }, async t => {
    const dir = freshDir(t, 'locked-bodies-')
    const profilerPath = join(dir, 'profiler.sqlite')
    const server = await startServer(t, {
      DATABASE_PATH: join(dir, 'app.sqlite'),
      PROFILER_DATABASE_PATH: profilerPath,
      // NODE_OPTIONS set (empty for V8's default heap) replaces npm start's heap bound (startServer).
      NODE_OPTIONS: heap === undefined ? '' : `--max-old-space-size=${heap}`,
      // The service's default load shedding (startServer turns it off unless asked): memory is bounded as it runs.
      MAX_EVENT_LOOP_DELAY: '1s'
    })
    let maxRss = rssOf(server.pid)
    const sampling = setInterval(() => { maxRss = Math.max(maxRss, rssOf(server.pid)) }, 20)
    t.teardown(() => { clearInterval(sampling) })

    // Another process holds the profiler file's write lock for the whole burst.
    const lock = new BetterSqlite3(profilerPath, { timeout: 5000 })
    lock.exec('BEGIN IMMEDIATE')
    t.teardown(() => { if (lock.open) { lock.exec('ROLLBACK'); lock.close() } })

    const polls = pollLoad(server.address, 1, { pauseMs: 20 })
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
    t.teardown(() => { agent.destroy() })
    const answers: Array<{ status: number, token: string | undefined }> = []
    let next = 0
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next++ < BODIES) answers.push(await post(server.address, agent, BODY_BYTES))
    }))
    await polls.stop()

    t.equal(answers.length, BODIES, 'every body answered')
    // A 503 is the documented load shedding (event loop delay over 1 s): seen here only when other
    // work loads the machine far beyond its 2 cores (none idle or in CI; 108 of 600 at a load
    // average of 15). Shed or not, each answer is profiled, and checked below.
    const shed = answers.filter(answer => answer.status === 503).length
    t.same(answers.filter(answer => answer.status !== 200 && answer.status !== 503), [], `each one 200, or 503 when shed (${shed}): no other status`)
    t.ok(polls.answers.length > 0 && polls.answers.every(answer => answer.status === 200 || answer.status === 503), `the status poll answered throughout (${polls.answers.length} polls)`)
    await waitFor(async () => (await health(server.address)).state === 'failing', { timeoutMs: 30_000, what: 'the listing to report the locked store' })
    const during = await health(server.address)
    t.ok(during.queued > 0, `profiles wait in memory meanwhile (${during.queued})`)

    lock.exec('ROLLBACK')
    lock.close()
    await waitFor(async () => { const now = await health(server.address); return now.state === 'ok' && now.queued === 0 }, { timeoutMs: 60_000, what: 'the queue to be written once the lock is gone' })
    clearInterval(sampling)
    maxRss = Math.max(maxRss, rssOf(server.pid))
    t.ok(maxRss <= MAX_RSS_BYTES, `RSS at most ${MAX_RSS_BYTES / 2 ** 20} MiB (max ${(maxRss / 2 ** 20).toFixed(0)} MiB)`)

    const stored = storedTokens(profilerPath)
    const tokens = [...answers, ...polls.answers].map(answer => answer.token)
    t.equal(tokens.filter(token => token === undefined || token === null).length, 0, 'every answer carried a token')
    t.same(tokens.filter(token => !stored.has(token ?? '')), [], 'every profile stored once the store is back')
    t.equal((await health(server.address)).dropped, 0, 'none dropped')
    const profile = await (await fetch(`${server.address}/_profiler/${answers[0]?.token ?? ''}?panel=request`, { headers: { accept: 'application/json' } })).json() as { panels: { request: { body: { truncated: boolean, bytes: number, preview: string } } } }
    t.match(profile.panels.request.body, { truncated: true, bytes: BODY.length }, 'the stored body is the preview, with the size as sent')
    t.equal(profile.panels.request.body.preview, BODY.slice(0, 64 * 1024), 'the preview is the start of the body')
    t.equal(await server.stop(), 0, 'the server stops cleanly')
  })
}
