// run-suite: shares a process
import t from 'tap'
import { buildApp } from '../../app.js'
import { buildTestApp, postJson, testConfig } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { profileJson } from '../helpers/profiler.js'

t.test('request panel: query, parsed body, headers, route, params, response status, headers and JSON body', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/items/:id', async request => ({ id: (request.params as { id: string }).id }))
  })
  const res = await postJson(app, '/ccenter/getConseillerByCode?trace=1', { code: 'ADV1001' }, { 'x-client': 'desk-7' })
  const { request } = (await profileJson(app, tokenOf(res))).panels
  t.match(request, {
    method: 'POST',
    url: 'http://localhost/ccenter/getConseillerByCode?trace=1',
    route: '/ccenter/getConseillerByCode',
    query: { trace: '1' },
    body: { code: 'ADV1001' },
    requestHeaders: { 'x-client': 'desk-7', 'content-type': 'application/json' },
    response: { statusCode: 200, statusText: 'OK', headers: { 'content-type': 'application/json; charset=utf-8', 'x-debug-token': tokenOf(res) }, body: { code: 'ADV1001', lastName: 'Martin' } }
  })
  const item = await app.inject({ url: '/test/items/42' })
  const panel = (await profileJson(app, tokenOf(item), '?panel=request')).panels.request
  t.same(panel.params, { id: '42' })
  t.equal(panel.route, '/test/items/:id')
  const page = await app.inject({ url: `/_profiler/${tokenOf(res)}?panel=request`, headers: { accept: 'text/html' } })
  t.match(page.body, /<th class="mono">x-client<\/th><td class="mono">desk-7<\/td>/)
  t.match(page.body, /&quot;code&quot;: &quot;ADV1001&quot;/)
})

t.test('request panel: bodies over 64 KiB are truncated with a marker; large responses are not kept', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.post('/test/echo-size', async request => ({ keys: Object.keys(request.body as object).length }))
    app.get('/test/big', async () => ({ data: 'y'.repeat(70 * 1024) }))
  })
  const res = await postJson(app, '/test/echo-size', { blob: 'x'.repeat(100 * 1024) })
  const { body } = (await profileJson(app, tokenOf(res), '?panel=request')).panels.request
  t.equal(body.truncated, true)
  // The 100 KiB string is cut at the redactor's 64 KiB scan limit (the rest redacted), then the body previewed.
  t.ok(body.bytes > 64 * 1024)
  t.equal(body.preview.length, 64 * 1024)
  const big = await app.inject({ url: '/test/big' })
  t.equal((await profileJson(app, tokenOf(big), '?panel=request')).panels.request.response.body, null)
})

t.test('exception panel: status, message and the whole cause chain (robots.txt)', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ url: '/robots.txt', headers: { host: 'localhost:8000' } })
  const { exception } = (await profileJson(app, tokenOf(res))).panels
  t.same(exception, {
    name: 'NotFoundHttpError',
    statusCode: 404,
    statusText: 'Not Found',
    message: 'No route found for "GET http://localhost:8000/robots.txt"',
    chain: [
      { name: 'NotFoundHttpError', message: 'No route found for "GET http://localhost:8000/robots.txt"' },
      { name: 'ResourceNotFoundError', message: 'No routes found for "/robots.txt/".' }
    ]
  })
  const page = await app.inject({ url: `/_profiler/${tokenOf(res)}?panel=exception&type=request`, headers: { accept: 'text/html' } })
  t.match(page.body, /HTTP 404 <small>Not Found<\/small>/)
  t.match(page.body, /<h3>Exceptions 2<\/h3>/)
  t.match(page.body, /No routes found for &quot;\/robots.txt\/&quot;\./)
  const ok = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  await app.profileStore.flush()
  const none = await app.inject({ url: `/_profiler/${tokenOf(ok)}?panel=exception`, headers: { accept: 'text/html' } })
  t.match(none.body, /No exception was thrown and caught\./)
})

t.test('exception panel: body errors keep the framework error as cause; 5xx stacks only outside production', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/boom', async () => { throw new TypeError('kaput') })
  })
  const tooLarge = await postJson(app, '/monitor/MonitorPooling', { a: 'x'.repeat(1024 * 1024) })
  const chain = (await profileJson(app, tokenOf(tooLarge))).panels.exception.chain
  t.match(chain, [{ name: 'PayloadTooLargeError', message: /1 MiB/ }, { message: 'Request body is too large' }])
  const boom = await app.inject({ url: '/test/boom' })
  const dev = (await profileJson(app, tokenOf(boom))).panels.exception
  t.match(dev, { name: 'TypeError', statusCode: 500, message: 'kaput' })
  t.match(dev.chain[0].stack, /TypeError: kaput\n\s+at /)

  const prod = await buildApp(testConfig(t, { NODE_ENV: 'production', PROFILER: 'on', PROFILER_SECRET: 'a-long-enough-secret' }))
  prod.get('/test/boom', async () => { throw new TypeError('kaput') })
  t.teardown(() => prod.close())
  const prodBoom = await prod.inject({ url: '/test/boom' })
  t.equal(prodBoom.json().message, 'Internal Server Error')
  const prodPanel = (await profileJson(prod, tokenOf(prodBoom))).panels.exception
  t.equal(prodPanel.message, 'kaput', 'the operator sees the real message')
  t.equal(prodPanel.chain[0].stack, undefined, 'no stack in production')
})

t.test('performance panel: total, before/in handler, sending, heap', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/slow', async () => {
      await new Promise(resolve => setTimeout(resolve, 30))
      return { ok: true }
    })
  })
  const res = await app.inject({ url: '/test/slow' })
  const { performance } = (await profileJson(app, tokenOf(res), '?panel=performance')).panels
  t.ok(performance.handlerMs >= 25, `handler time ${performance.handlerMs} ms covers the 30 ms wait`)
  t.ok(performance.totalMs >= performance.handlerMs)
  t.ok(Math.abs(performance.totalMs - (performance.beforeHandlerMs + performance.handlerMs + performance.sendingMs)) < 0.01, 'the phases add up')
  t.ok(performance.heapUsedBytes > 1_000_000)
  t.equal(performance.droppedProfiles, 0)
  const miss = await app.inject({ url: '/nope' })
  t.equal((await profileJson(app, tokenOf(miss), '?panel=performance')).panels.performance.handlerMs, null, 'no handler ran')
})

t.test('router panel: matched route and method, or the failure tried', async t => {
  const app = await buildTestApp(t)
  const ok = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  t.same((await profileJson(app, tokenOf(ok), '?panel=router')).panels.router, { matched: { route: '/monitor/MonitorPooling', method: 'POST' }, failure: null })
  const cases: Array<[string, string, object]> = [
    ['GET', '/robots.txt', { outcome: 'not-found', method: 'GET', path: '/robots.txt', twinPath: '/robots.txt/', allowedMethods: [] }],
    ['POST', '/robots.txt', { outcome: 'not-found', method: 'POST', path: '/robots.txt', twinPath: null, allowedMethods: [] }],
    ['GET', '/monitor/MonitorPooling', { outcome: 'method-not-allowed', method: 'GET', path: '/monitor/MonitorPooling', twinPath: null, allowedMethods: ['POST'] }],
    ['GET', '/_profiler', { outcome: 'redirect', method: 'GET', path: '/_profiler', twinPath: '/_profiler/', allowedMethods: [] }]
  ]
  for (const [method, url, failure] of cases) {
    const res = await app.inject({ method: method as 'GET', url })
    t.same((await profileJson(app, tokenOf(res), '?panel=router')).panels.router, { matched: null, failure }, `${method} ${url}`)
  }
  const page = await app.inject({ url: `/_profiler/${tokenOf(ok)}?panel=router`, headers: { accept: 'text/html' } })
  t.match(page.body, /<th>Matched route<\/th><td class="mono">\/monitor\/MonitorPooling<\/td>/)
})
