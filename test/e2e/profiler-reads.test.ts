// run-suite: shares a process
import { Agent, request } from 'node:http'
import t from 'tap'
import { pollLoad } from '../helpers/poll-load.js'
import { parseAnswers, sendRaw } from '../helpers/raw-http.js'
import { startServer } from '../helpers/server.js'
import { waitFor } from '../helpers/wait-for.js'

// Issue 20: clients looping on the profiler's costliest pages (a URL search that matches nothing
// after a trigram walk, a 100-profile HAR export) must not starve the status poll. Here: the poll
// goes on being answered beside them, every answer a 200, and the exports' bound holds. How much
// of its throughput the poll keeps is a measure, not an assertion: `npm run bench -- --only=pages`
// gives it as a ratio against the poll alone in the same run (70% is the target on an idle machine).

/** Distinct scanner URLs stored before the pages loop: more than a 100-profile export, each search a walk of them all. */
const SCANNER_PROFILES = 300
/** Poll answers awaited while the page clients loop: the poll is not starved. */
const POLLS_BESIDE = 100
const PAGE_CLIENTS = 8
const COSTLY_SEARCH = '/_profiler/empty/search/results?url=NOPE/results%3Fip%3D127&limit=100'
const LARGE_HAR = '/_profiler/empty/search/har?limit=100'

interface Answer { status: number, body: string, retryAfter?: string }

/** `keepBody: false`: the body is read and dropped (the page loops: the client's CPU is the poll's too). */
async function get (address: string, path: string, agent: Agent, keepBody = true): Promise<Answer> {
  return await new Promise((resolve, reject) => {
    const req = request(new URL(path, address), { agent, headers: { accept: 'application/json' } }, res => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { if (keepBody || res.statusCode !== 200) body += chunk })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'] }) })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * `count` requests for `path` pipelined on one connection and sent in one write (one segment), and
 * their answers in order. The server reads the segment in one read and its parser hands over every
 * request in that same turn of the event loop, so each is admitted, queued or refused before any
 * of them can end: an export ends on a later turn, when the reader thread's answer comes back.
 * With one connection per request, a client descheduled between two of its writes (a busy
 * machine) let a running export end first, and the requests written after it took its place.
 */
async function burstGet (address: string, path: string, count: number): Promise<Answer[]> {
  const { host } = new URL(address)
  const requests = Array.from({ length: count }, (_, i) =>
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n${i === count - 1 ? 'Connection: close\r\n' : ''}\r\n`)
  return parseAnswers(await sendRaw(address, requests.join('')))
    .map(answer => ({ status: answer.status, body: answer.body, retryAfter: answer.headers['retry-after'] }))
}

t.test('eight clients looping on the costliest profiler pages: the status poll is still answered, the exports bounded', async t => {
  const server = await startServer(t)
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  t.teardown(() => { agent.destroy() })

  // Scanner traffic: distinct 200-character paths, each a profile with its own URL.
  let sent = 0
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (sent < SCANNER_PROFILES) {
      const n = sent++
      await get(server.address, `/scan/${String(n).padStart(6, '0')}/${'results?ip=127.0.0.1&q='.padEnd(185, 'x')}`, agent)
    }
  }))
  await waitFor(async () => JSON.parse((await get(server.address, '/_profiler/empty/search/results?limit=1&url=/scan/', agent)).body).results.length > 0 &&
    JSON.parse((await get(server.address, `/_profiler/empty/search/results?limit=1&url=/scan/${String(SCANNER_PROFILES - 1).padStart(6, '0')}/`, agent)).body).results.length === 1,
  { timeoutMs: 60_000, what: 'the scanner profiles to be stored' })

  const polls = pollLoad(server.address, 2)
  t.teardown(polls.stop)
  await waitFor(() => polls.answers.length >= 50, { what: 'the poll to warm up' })
  const pageAnswers: Answer[] = []
  const pageAgent = new Agent({ keepAlive: true })
  t.teardown(() => { pageAgent.destroy() })
  const state = { running: true }
  const clients = Array.from({ length: PAGE_CLIENTS }, async (_, i) => {
    while (state.running) pageAnswers.push(await get(server.address, i % 2 === 0 ? COSTLY_SEARCH : LARGE_HAR, pageAgent, i % 2 === 0))
  })
  await waitFor(() => pageAnswers.length >= PAGE_CLIENTS, { timeoutMs: 60_000, what: 'the page clients to start' })
  const from = polls.answers.length
  await waitFor(() => polls.answers.length >= from + POLLS_BESIDE, { timeoutMs: 60_000, what: `${POLLS_BESIDE} status polls beside ${PAGE_CLIENTS} page clients` })
  state.running = false
  await Promise.all(clients)
  await polls.stop()
  t.pass(`${POLLS_BESIDE} status polls answered while ${PAGE_CLIENTS} clients looped on the pages`)

  t.ok(polls.answers.every(answer => answer.status === 200), 'every poll answered 200')

  // The pages stay correct: answered, or refused with a 503 that says when to come back.
  t.ok(pageAnswers.some(answer => answer.status === 200), 'the pages answered')
  for (const answer of pageAnswers) {
    if (answer.status === 503) t.equal(answer.retryAfter, '1', 'a refused page says when to retry')
    else if (answer.status !== 200) t.fail(`a page answered ${answer.status}: ${answer.body.slice(0, 200)}`)
  }
  const search = pageAnswers.find(answer => answer.status === 200 && answer.body.startsWith('{"results"'))
  t.same(search === undefined ? null : JSON.parse(search.body).results, [], 'the costly search matches nothing')
  const har = JSON.parse((await get(server.address, LARGE_HAR, agent)).body)
  t.equal(har.log.entries.length, 100, 'the HAR export holds 100 profiles')

  // The bound: 40 exports at once; 2 run, 16 wait, the rest are refused. All 40 reach the server
  // before any export can end (burstGet), and a pipelined connection answers in order.
  const burst = await burstGet(server.address, LARGE_HAR, 40)
  t.same(burst.map(answer => answer.status), [...Array(18).fill(200), ...Array(22).fill(503)], 'past 2 running and 16 waiting, every export is refused')
  t.ok(burst.slice(0, 18).every(answer => answer.status === 200 && JSON.parse(answer.body).log.entries.length === 100), 'the running and waiting exports are answered in full')
  const refused = burst.slice(18)
  t.match(refused.map(answer => JSON.parse(answer.body)), Array(22).fill({ statusCode: 503, message: /^The profiler pages are busy \(2 running, 16 waiting\); try again in 1 s/ }), 'the refusals say why')
  t.ok(refused.every(answer => answer.retryAfter === '1'), 'and when to come back')
  t.equal(await server.stop(), 0)
})
