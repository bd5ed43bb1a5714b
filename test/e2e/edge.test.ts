// The edge of the real server (dist/server.js on a real socket): requests shaped to stop, stall
// or mislead it.
import t from 'tap'
import { startServer } from '../helpers/server.js'

t.test('production, profiler off: "/?x=" + "a=" x 6,000 is a 404, and the process keeps serving', async t => {
  const server = await startServer(t, { NODE_ENV: 'production' })
  const res = await fetch(`${server.address}/?x=${'a='.repeat(6000)}`)
  t.equal(res.status, 404)
  const poll = await fetch(`${server.address}/monitor/MonitorPooling`, { method: 'POST' })
  t.equal(poll.status, 200, 'still serving')
  t.notMatch(server.log(), /RangeError|shutting down/, 'no error, no shutdown')
  t.equal(await server.stop('SIGTERM'), 0)
})
