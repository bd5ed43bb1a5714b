// Load shedding: past the event-loop-delay bound new requests are a 503 with Retry-After, still
// profiled; once the loop is responsive again they are served.
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profileJson } from '../helpers/profiler.js'

t.test('an event loop blocked past MAX_EVENT_LOOP_DELAY: 503 with Retry-After, profiled, then served again', async t => {
  const app = await buildTestApp(t, { MAX_EVENT_LOOP_DELAY: '20ms' }, app => {
    app.get('/test/block', async () => {
      const until = Date.now() + 1500
      while (Date.now() < until) {} // eslint-disable-line no-empty
      return { blocked: true }
    })
  })
  t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200, 'served before')
  await app.inject({ url: '/test/block' })
  let shed = null
  for (let i = 0; i < 60 && shed === null; i++) {
    const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
    if (res.statusCode === 503) shed = res
    else await new Promise(resolve => setTimeout(resolve, 50))
  }
  if (shed === null) return t.fail('never shed')
  t.equal(shed.headers['retry-after'], '10')
  t.match(shed.json().message, 'The service is overloaded (event-loop delay over 20 ms): retry in 10 s')
  let served = false
  for (let i = 0; i < 60 && !served; i++) {
    served = (await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode === 200
    if (!served) await new Promise(resolve => setTimeout(resolve, 100))
  }
  t.ok(served, 'served again once the loop is responsive')
  // Read once the loop is responsive again: the profiler's pages are shed like any other request.
  const profile = await profileJson(app, shed.headers['x-debug-token'] as string)
  t.equal(profile.status, 503, 'the shed request is profiled')
})

t.test('MAX_EVENT_LOOP_DELAY=0ms turns shedding off', async t => {
  const app = await buildTestApp(t, { MAX_EVENT_LOOP_DELAY: '0ms' })
  t.notOk(app.hasDecorator('memoryUsage'), 'under-pressure is not registered')
  t.equal((await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })).statusCode, 200)
})
