// The edge of the real server (dist/server.js on a real socket): requests shaped to stop, stall
// or mislead it.
import { once } from 'node:events'
import { connect, type AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import t from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { startServer } from '../helpers/server.js'

// One real server for both of its tests, started at load (a start is seconds of CPU): in production
// (the profiler off) and with short request timeouts, which neither test's requests come near but
// the one about them. The byte-by-byte body first; the production test stops the server.
const serving = startServer(t, { NODE_ENV: 'production', REQUEST_TIMEOUT: '2s', HEADERS_TIMEOUT: '1s' })
// A start that fails is said by the test that awaits it; no unhandled rejection before then.
serving.catch(() => {})

t.test('a body sent byte by byte is cut off at REQUEST_TIMEOUT (real socket)', async t => {
  const server = await serving
  const { hostname, port } = new URL(server.address)
  const socket = connect(Number(port), hostname)
  await once(socket, 'connect')
  const started = Date.now()
  socket.write('POST /monitor/MonitorPooling HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n')
  const drip = setInterval(() => { if (!socket.destroyed) socket.write('{') }, 200) // 1,000 bytes would take 200 s
  t.teardown(() => { clearInterval(drip); socket.destroy() })
  let answer = ''
  socket.on('data', chunk => { answer += String(chunk) })
  // The server closes the connection with the 408: a byte of ours that reaches it afterwards is
  // answered with a reset, which this side reads as ECONNRESET after the answer. Not a failure.
  const resets: Error[] = []
  socket.on('error', error => { resets.push(error) })
  await new Promise(resolve => socket.once('close', resolve))
  const elapsed = Date.now() - started
  clearInterval(drip)
  t.ok(resets.every(error => (error as NodeJS.ErrnoException).code === 'ECONNRESET'), 'no socket error other than a reset after the answer')
  t.ok(elapsed >= 1900 && elapsed < 6000, `cut off after ${elapsed} ms (bound 2 s, checked every second)`)
  t.match(answer, /^HTTP\/1\.1 408/, 'with a 408')
  t.equal((await fetch(`${server.address}/monitor/MonitorPooling`, { method: 'POST' })).status, 200, 'others are served')
})

t.test('production, profiler off: "/?x=" + "a=" x 6,000 is a 404, and the process keeps serving', async t => {
  const server = await serving
  const res = await fetch(`${server.address}/?x=${'a='.repeat(6000)}`)
  t.equal(res.status, 404)
  const poll = await fetch(`${server.address}/monitor/MonitorPooling`, { method: 'POST' })
  t.equal(poll.status, 200, 'still serving')
  t.notMatch(server.log(), /RangeError|shutting down/, 'no error, no shutdown')
  // Stopped before the next test measures this process's CPU time.
  t.equal(await server.stop('SIGTERM'), 0)
})

t.test('a 1 MiB adversarial body does not stall the loop: a request sent alongside is answered, the CPU time it costs bounded', async t => {
  const app = await buildApp(testConfig(t))
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  const bodies = [
    `{"code":"ADV1001","x":"${'a='.repeat(520_000)}"}`,
    `{"code":"ADV1001","x":"${'eyJ-'.repeat(260_000)}"}`,
    `{${Array.from({ length: 35_000 }, (_, i) => `"k${i}":"a=a&b=password=x"`).join(',')}}`
  ]
  histogram.enable()
  for (const body of bodies) {
    const started = Date.now()
    const cpu = process.cpuUsage()
    const [big, poll] = await Promise.all([
      fetch(`${base}/ccenter/getConseillerByCode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
      fetch(`${base}/monitor/MonitorPooling`, { method: 'POST' })
    ])
    // The profile's part too: a large body is redacted in onResponse, which may end after the answer.
    await app.profileStore.flush()
    const { user, system } = process.cpuUsage(cpu)
    const cpuMs = (user + system) / 1000
    t.ok(big.status < 500, `the big body is answered ${big.status} (${body.length} bytes, ${Date.now() - started} ms)`)
    t.equal(poll.status, 200, 'the request alongside is answered')
    // Bounded in CPU time, not wall clock: a loop stalled by this body is CPU work of this process,
    // and CPU time counts that work without the time a loaded machine (CI's CPU hog, other files)
    // keeps the process waiting for a core, which can stretch a wall-clock delay past any fixed
    // bound. 20-150 ms a body here (V8 coverage adds little); a super-linear scan costs seconds.
    // Generous for a core's hyperthread shared with the hog.
    t.ok(cpuMs < 2500, `the body and its profile cost ${cpuMs.toFixed(0)} ms of CPU time (bound: 2.5 s)`)
  }
  histogram.disable()
  t.comment(`event-loop delay at most ${(histogram.max / 1e6).toFixed(0)} ms of wall clock (not bounded: a loaded machine stretches it)`)
})
