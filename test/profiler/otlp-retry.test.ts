// Issue 39, "Send profiles out as traces", second Proof line: a real OTLP/HTTP receiver on loopback
// answers 503, then 429 with Retry-After, then goes away (a cut connection, then nothing listening),
// then returns. Nothing blocks: profiles made meanwhile are stored while the export still retries;
// the counts are exact (exported + dropped + waiting = every span of every stored profile, exported =
// what the receiver took). A 400 is never retried; a collector that stays down past the tries has its
// spans dropped and counted. The writer in its own thread, both store engines.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Worker } from 'node:worker_threads'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { otlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js'
import { startedWorkers } from '../helpers/started-workers.js'
import { storeEngines } from '../helpers/store-engines.js'
import { waitFor } from '../helpers/wait-for.js'

const JSON_ACCEPT = { accept: 'application/json' }

interface ExportState { state: string, reason: string | null, exportedSpans: number, droppedSpans: number, queuedSpans: number }

async function listing (app: FastifyInstance): Promise<{ tokens: string[], export: ExportState }> {
  const body = (await app.inject({ url: '/_profiler/empty/search/results?limit=100', headers: JSON_ACCEPT })).json()
  return { tokens: body.results.map((row: { token: string }) => row.token), export: body.store.export }
}

/** A status poll, stored: its token. */
async function poll (app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{}' })
  if (res.statusCode !== 200) throw new Error(`the poll answered ${res.statusCode}: ${res.body.slice(0, 500)}`)
  return res.headers['x-debug-token'] as string
}

/** The spans a profile makes: the request, its hook runs and handler, its statements (from its own JSON). */
async function spansOf (app: FastifyInstance, token: string): Promise<number> {
  const { panels } = (await app.inject({ url: `/_profiler/${token}`, headers: JSON_ACCEPT })).json()
  return 1 + panels.timeline.items.filter((item: { kind: string }) => item.kind !== 'statement').length + panels.db.statements.length
}

/** The tokens in the bodies the receiver took (a 2xx), each once per body it came in. */
function tokensTaken (receiver: OtlpReceiver): string[] {
  return receiver.accepted().flatMap(request => request.spans.map(span => span.attributes['profiler.token']).filter((token): token is string => typeof token === 'string'))
}

async function sum (app: FastifyInstance, tokens: string[]): Promise<number> {
  let total = 0
  for (const token of tokens) total += await spansOf(app, token)
  return total
}

/** The bytes of a request of one poll's trace (the receiver's first): an app of its own sends one. */
async function oneTraceBytes (t: Test, receiver: OtlpReceiver): Promise<number> {
  const probe = await buildTestApp(t, { PROFILER_OTLP_ENDPOINT: receiver.url }, undefined, { profiler: { otlpTuning: { delayMs: 5 } } })
  await poll(probe)
  await probe.profileStore.flush()
  await waitFor(() => receiver.received.length === 1, { what: 'one trace, to know its size' })
  return receiver.received[0]?.body.length ?? 0
}

t.jobs = 2
for (const engine of storeEngines(t)) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    t.test('503, 429 with Retry-After, gone, back: retried until taken, nothing blocks, counts exact', async t => {
      const receiver = await otlpReceiver(t)
      receiver.answer = index => {
        if (index === 0) return { status: 503 }
        if (index === 1) return { status: 429, headers: { 'retry-after': '1' } }
        if (index === 2) {
          // Goes away: this connection cut without an answer, and nothing listens after it.
          receiver.stop().catch(() => {})
          return 'vanish'
        }
        return { status: 200 }
      }
      const env = { ...await engine.fresh(t), PROFILER_OTLP_ENDPOINT: receiver.url, PROFILER_WRITER: 'thread' }
      const app = await buildTestApp(t, env, undefined, { profiler: { otlpTuning: { delayMs: 5, firstRetryMs: 50, maxRetryMs: 200, maxAttempts: 1000 } } })
      const first = [await poll(app), await poll(app)]
      await app.profileStore.flush()
      await waitFor(async () => (await listing(app)).export.reason?.includes('ECONNREFUSED') === true, { what: 'tries on a collector that is not there' })

      // Meanwhile profiles are stored as ever: the writer does not wait for the export.
      const during = [await poll(app), await poll(app), await poll(app)]
      await app.profileStore.flush()
      const meanwhile = await listing(app)
      t.ok([...first, ...during].every(token => meanwhile.tokens.includes(token)), 'every profile stored while the collector is away')
      t.equal(meanwhile.export.state, 'retrying', 'while the export still retries')
      t.equal(meanwhile.export.exportedSpans + meanwhile.export.droppedSpans, 0)

      const [answered503, answered429, cut] = receiver.received
      t.same([answered503?.status, answered429?.status, cut?.status], [503, 429, 0])
      t.ok(answered503 !== undefined && answered429 !== undefined && cut !== undefined)
      if (answered503 === undefined || answered429 === undefined || cut === undefined) return
      t.ok(cut.at - answered429.at >= 1000, `Retry-After: 1 honoured (${cut.at - answered429.at} ms)`)
      t.ok(answered429.at - answered503.at < 1000, 'a 503 without Retry-After: the back-off\'s first delay')
      t.ok(answered503.body.equals(answered429.body) && answered429.body.equals(cut.body), 'the same batch each time')

      await receiver.start()
      const all = [...first, ...during]
      const expected = await sum(app, all)
      await waitFor(async () => {
        const { export: state } = await listing(app)
        return state.exportedSpans + state.droppedSpans === expected && state.queuedSpans === 0
      }, { what: 'every span settled', timeoutMs: 15_000 })
      const { export: settled } = await listing(app)
      t.same([settled.state, settled.exportedSpans, settled.droppedSpans, settled.queuedSpans], ['ok', expected, 0, 0], 'all exported once the collector is back')
      const taken = tokensTaken(receiver)
      t.same([...taken].sort(), [...all].sort(), 'each profile taken once')
      t.equal(receiver.accepted().reduce((total, request) => total + request.spans.length, 0), expected, 'the receiver took exactly what is counted')
    })

    t.test('a 400 is not retried; a collector that stays down: spans dropped and counted; then back', async t => {
      const receiver = await otlpReceiver(t)
      receiver.answer = index => index === 0 ? { status: 400 } : { status: 200 }
      const env = { ...await engine.fresh(t), PROFILER_OTLP_ENDPOINT: receiver.url, PROFILER_OTLP_PROTOCOL: 'http/json', PROFILER_WRITER: 'thread' }
      const app = await buildTestApp(t, env, undefined, { profiler: { otlpTuning: { delayMs: 5, firstRetryMs: 20, maxRetryMs: 50, maxAttempts: 3 } } })

      const refused = await poll(app)
      await app.profileStore.flush()
      await waitFor(async () => (await listing(app)).export.droppedSpans > 0, { what: 'the 400 counted' })
      const refusedSpans = await spansOf(app, refused)
      t.match((await listing(app)).export, { state: 'failing', droppedSpans: refusedSpans, exportedSpans: 0, reason: /HTTP 400/ })
      const taken = await poll(app)
      await app.profileStore.flush()
      await waitFor(() => tokensTaken(receiver).includes(taken), { what: 'the next profile taken' })
      t.same([receiver.received.length, tokensTaken(receiver)], [2, [taken]], 'the refused batch was not sent again')

      await receiver.stop()
      const lost = [await poll(app), await poll(app)]
      await app.profileStore.flush()
      const lostSpans = await sum(app, lost)
      const takenSpans = await spansOf(app, taken)
      await waitFor(async () => (await listing(app)).export.droppedSpans === refusedSpans + lostSpans, { what: 'the spans of the profiles made while it is down dropped' })
      const down = await listing(app)
      t.match(down.export, { state: 'failing', exportedSpans: takenSpans, queuedSpans: 0, reason: /after 3 tries/ }, 'dropped after the last try, and said why')
      t.ok(lost.every(token => down.tokens.includes(token)), 'their profiles are stored all the same')

      await receiver.start()
      const after = await poll(app)
      await app.profileStore.flush()
      const afterSpans = await spansOf(app, after)
      await waitFor(async () => (await listing(app)).export.exportedSpans === takenSpans + afterSpans, { what: 'the export working again' })
      const back = await listing(app)
      t.same([back.export.state, back.export.droppedSpans, back.export.queuedSpans], ['ok', refusedSpans + lostSpans, 0], 'exact: nothing counted twice, nothing missing')
      t.same(tokensTaken(receiver), [taken, after])
    })
  })
}

t.test('a writer thread that dies with spans waiting: they are counted as dropped, the counts go on from there', async t => {
  const receiver = await otlpReceiver(t)
  await receiver.stop()
  const workers = startedWorkers(t)
  const app = await buildTestApp(t, { PROFILER_OTLP_ENDPOINT: receiver.url, PROFILER_WRITER: 'thread' }, undefined, { profiler: { otlpTuning: { delayMs: 5, firstRetryMs: 20, maxRetryMs: 50, maxAttempts: 1000 } } })
  const waiting = [await poll(app), await poll(app)]
  await app.profileStore.flush()
  const waitingSpans = await sum(app, waiting)
  await waitFor(async () => (await listing(app)).export.queuedSpans === waitingSpans, { what: 'the spans waiting for the collector' })
  const writer = workers[0] as Worker
  const exited = new Promise(resolve => writer.once('exit', resolve))
  writer.terminate().catch(() => {})
  await exited
  await waitFor(async () => (await listing(app)).export.droppedSpans === waitingSpans, { timeoutMs: 15_000, what: 'the new writer thread\'s first report' })
  await receiver.start()
  const after = await poll(app)
  await app.profileStore.flush()
  const afterSpans = await spansOf(app, after)
  await waitFor(async () => (await listing(app)).export.exportedSpans === afterSpans, { what: 'the new thread exporting' })
  t.match((await listing(app)).export, { state: 'ok', exportedSpans: afterSpans, droppedSpans: waitingSpans, queuedSpans: 0 })
  t.same(tokensTaken(receiver), [after])
})

t.test('bounded in bytes: requests split at the request bound; traces that find the queue full are dropped and counted', async t => {
  const receiver = await otlpReceiver(t)
  const traceBytes = await oneTraceBytes(t, receiver)
  // Room for two traces a request; the queue holds all five made at once.
  const split = await buildTestApp(t, { PROFILER_OTLP_ENDPOINT: receiver.url }, undefined, { profiler: { otlpTuning: { delayMs: 200, maxRequestBytes: Math.floor(traceBytes * 2.5) } } })
  const five: string[] = []
  for (let i = 0; i < 5; i++) five.push(await poll(split))
  await split.profileStore.flush()
  await waitFor(() => five.every(token => tokensTaken(receiver).includes(token)), { what: 'the five traces' })
  const bodies = receiver.received.slice(1).map(request => request.body.length)
  t.ok(bodies.length >= 3, `in ${bodies.length} requests`)
  t.ok(bodies.every(bytes => bytes <= traceBytes * 2.5 + 512), 'each within the bound (and its envelope)')

  // A queue too small for any trace: every one dropped, counted, nothing sent.
  const sentBefore = receiver.received.length
  const full = await buildTestApp(t, { PROFILER_OTLP_ENDPOINT: receiver.url }, undefined, { profiler: { otlpTuning: { delayMs: 5, maxQueueBytes: 64 } } })
  const dropped = [await poll(full), await poll(full)]
  await full.profileStore.flush()
  const droppedSpans = await sum(full, dropped)
  await waitFor(async () => (await listing(full)).export.droppedSpans === droppedSpans, { what: 'the traces dropped' })
  t.match((await listing(full)).export, { state: 'failing', exportedSpans: 0, queuedSpans: 0, reason: /export queue is full/ })
  t.ok(dropped.every(token => !tokensTaken(receiver).includes(token)) && receiver.received.length === sentBefore, 'nothing sent')
  const page = (await full.inject({ url: '/_profiler/empty/search/results' })).body
  t.match(page, `<p class="error-message" id="otlp-export">Kept profiles are sent as traces to ${receiver.url}/v1/traces (http/protobuf): 0 span(s) exported, ${droppedSpans} dropped, 0 waiting; failing since`, 'the listing page says it')
  const stored = (await listing(full)).tokens
  t.ok(dropped.every(token => stored.includes(token)), 'their profiles stored all the same')
})

t.test('a request\'s worth queued goes out at once, without waiting for the rest of the delay', async t => {
  const receiver = await otlpReceiver(t)
  const traceBytes = await oneTraceBytes(t, receiver)
  // A delay no test waits for, and room for two traces a request. The profiles are written when
  // flushed only, so the three below reach the export in one offer.
  const app = await buildTestApp(t, { PROFILER_OTLP_ENDPOINT: receiver.url }, undefined, { profiler: { store: { flushDelayMs: 600_000 }, otlpTuning: { delayMs: 600_000, maxRequestBytes: Math.floor(traceBytes * 2.5) } } })
  // The first trace alone starts the delay (flush: offered to the export once stored)...
  const first = await poll(app)
  await app.profileStore.flush()
  t.same(tokensTaken(receiver).includes(first), false, 'the first trace waits')
  // ...three more make more than a request's worth: the first two go now.
  const more = [await poll(app), await poll(app), await poll(app)]
  await app.profileStore.flush()
  await waitFor(() => tokensTaken(receiver).includes(first), { what: 'a request before the delay ends' })
  // The request itself, not the tokens of every request one after the other (those read the same
  // when the first trace went alone and the next two in a second request: CI's run of 5d46eda).
  const request = receiver.accepted().find(taken => taken.spans.some(span => span.attributes['profiler.token'] === first))
  t.same(request?.spans.map(span => span.attributes['profiler.token']).filter(token => token !== undefined), [first, more[0]], 'the oldest two, in one request')
  t.ok((receiver.received.at(-1)?.body.length ?? 0) <= traceBytes * 2.5 + 512, 'within the request bound')
})

t.test('a collector that answers a byte at a time: the request ends at OTEL_EXPORTER_OTLP_TIMEOUT, is retried, nothing blocks', async t => {
  // Head at once, then one byte of body every 50 ms, never ending: the socket is never idle.
  const trickling = new Set<NodeJS.Timeout>()
  const collector = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-protobuf' })
      const timer = setInterval(() => { response.write('.') }, 50)
      trickling.add(timer)
      response.on('close', () => { clearInterval(timer); trickling.delete(timer) })
    })
  })
  await new Promise<void>(resolve => collector.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const timer of trickling) clearInterval(timer)
    collector.closeAllConnections()
    await new Promise(resolve => collector.close(resolve))
  })
  const { port } = collector.address() as AddressInfo
  const app = await buildTestApp(t, { PROFILER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_TIMEOUT: '500' }, undefined, { profiler: { otlpTuning: { delayMs: 5, firstRetryMs: 50, maxRetryMs: 200, maxAttempts: 1000 } } })
  const token = await poll(app)
  await app.profileStore.flush()
  await waitFor(async () => (await listing(app)).export.reason?.includes('ETIMEDOUT') === true, { timeoutMs: 20_000, what: 'the trickled request to time out' })
  t.match((await listing(app)).export, { state: 'retrying', exportedSpans: 0 }, 'retried, not counted as exported')
  t.ok((await listing(app)).tokens.includes(token), 'its profile stored all the same')
  t.equal((await poll(app)).length, 6, 'the service goes on')
})
