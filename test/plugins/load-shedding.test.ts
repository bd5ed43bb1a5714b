// run-suite: shares a process
// Load shedding: past the event-loop-delay bound new requests are a 503 with Retry-After, still
// profiled; once the loop is responsive again they are served.
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profilerPage } from '../helpers/profiler.js'
import { waitFor } from '../helpers/wait-for.js'

// The bound is far above what a loaded machine's loop shows (its mean tick some tens of ms over the
// sampler's 10 ms), so the requests before the block are served whatever else runs beside this file.
const BOUND_MS = 250
// under-pressure reads the mean of the loop's ticks over each sample (1 s): one long block is a
// single tick among up to a hundred short ones, so alone it trips a bound this high only when it
// falls early in a sample (measured: a 1.5 s block reads 375, 38 or 19 ms as it starts 50, 400 or
// 800 ms into one). So the route blocks twice for longer than a sample, letting the loop turn once
// between: a sample falls due during the first stretch and is taken at the turn, and the next one,
// due during the second stretch, is taken once it ends over a window holding nothing but that
// stretch (it reads about STRETCH_MS, or Infinity with no tick at all). That reading stands for the
// next second, whatever the phase of the samples; a loaded machine only makes the stretches longer.
const STRETCH_MS = 1200

t.test('an event loop blocked past MAX_EVENT_LOOP_DELAY: 503 with Retry-After, profiled, then served again', async t => {
  const app = await buildTestApp(t, { MAX_EVENT_LOOP_DELAY: `${BOUND_MS}ms` }, app => {
    app.get('/test/block', async () => {
      const block = (): void => {
        const until = Date.now() + STRETCH_MS
        while (Date.now() < until) {} // eslint-disable-line no-empty
      }
      block()
      // A timer, not setImmediate: the turn goes through the timers phase, where the delay is sampled.
      await new Promise(resolve => setTimeout(resolve, 0))
      block()
      return { blocked: true }
    })
  })
  const poll = async (): Promise<Awaited<ReturnType<typeof app.inject>>> => await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  t.equal((await poll()).statusCode, 200, 'served before')
  t.equal((await app.inject({ url: '/test/block' })).statusCode, 200, 'the blocking request itself is served')
  // The sample that reads the block is taken once the loop turns after it, and stands for a second:
  // the first poll may still meet the sample before (the answer can come first), the next ones not.
  let shed: Awaited<ReturnType<typeof app.inject>> | undefined
  await waitFor(async () => {
    const res = await poll()
    if (res.statusCode === 503) shed = res
    return shed !== undefined
  }, { timeoutMs: 5_000, what: 'a request shed after the block' })
  if (shed === undefined) return t.fail('never shed')
  t.equal(shed.headers['retry-after'], '10')
  t.match(shed.json().message, `The service is overloaded (event-loop delay over ${BOUND_MS} ms): retry in 10 s`)
  // The next samples hold the loop's ordinary ticks: within a couple of seconds on an idle machine.
  await waitFor(async () => (await poll()).statusCode === 200, { timeoutMs: 30_000, intervalMs: 100, what: 'requests served again once the loop is responsive' })
  // The profiler's pages are shed like any other request: a 503 is retried, anything else but 200 fails.
  const token = String(shed.headers['x-debug-token'])
  let profile: Record<string, any> | undefined
  await waitFor(async () => {
    const page = await profilerPage(app, `/${token}`)
    if (page.statusCode === 503) return false
    if (page.statusCode !== 200) throw new Error(`profile ${token} answered ${page.statusCode}: ${page.body}`)
    profile = JSON.parse(page.body)
    return true
  }, { timeoutMs: 30_000, intervalMs: 100, what: 'the shed request\'s profile page answered (not shed)' })
  t.equal(profile?.status, 503, 'the shed request is profiled')
})

t.test('MAX_EVENT_LOOP_DELAY=0ms turns shedding off', async t => {
  const app = await buildTestApp(t, { MAX_EVENT_LOOP_DELAY: '0ms' })
  t.notOk(app.hasDecorator('memoryUsage'), 'under-pressure is not registered')
  t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200)
})
