// run-suite: shares a process
import t from 'tap'
import { listProfiles } from '../helpers/profiler.js'
import { buildTestApp } from '../helpers/app.js'

t.test('an unknown path is a 404 with the absolute URL, for any method', async t => {
  const app = await buildTestApp(t)
  for (const method of ['GET', 'POST', 'DELETE', 'PUT'] as const) {
    const res = await app.inject({ method, url: '/css/styles.css?v=3', headers: { host: 'api.example.test:8000' } })
    t.equal(res.statusCode, 404, method)
    t.same(res.json(), { statusCode: 404, error: 'Not Found', message: `No route found for "${method} http://api.example.test:8000/css/styles.css"` })
  }
})

t.test('the host comes from the request, without a default port', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'GET', url: '/robots.txt' })
  t.equal(res.json().message, 'No route found for "GET http://localhost/robots.txt"')
  const other = await app.inject({ method: 'GET', url: '/robots.txt', headers: { host: 'b.example.test' } })
  t.equal(other.json().message, 'No route found for "GET http://b.example.test/robots.txt"')
})

t.test('a Referer adds the (from "...") suffix', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'GET', url: '/robots.txt', headers: { host: 'localhost:8000', referer: 'http://localhost:8000/page' } })
  t.equal(res.json().message, 'No route found for "GET http://localhost:8000/robots.txt" (from "http://localhost:8000/page")')
})

t.test('X-Forwarded-Host/-Proto count only when TRUST_PROXY is on', async t => {
  const headers = { host: 'internal:8000', 'x-forwarded-host': 'public.example.test', 'x-forwarded-proto': 'https' }
  const off = await buildTestApp(t)
  t.equal((await off.inject({ url: '/nope', headers })).json().message, 'No route found for "GET http://internal:8000/nope"')
  const on = await buildTestApp(t, { TRUST_PROXY: 'on' })
  t.equal((await on.inject({ url: '/nope', headers })).json().message, 'No route found for "GET https://public.example.test/nope"')
})

t.test('a known path with the wrong method is a 405 with Allow', async t => {
  const app = await buildTestApp(t)
  for (const method of ['GET', 'HEAD', 'PUT', 'DELETE'] as const) {
    const res = await app.inject({ method, url: '/ccenter/getConseillerByCode?x=1' })
    t.equal(res.statusCode, 405, method)
    t.equal(res.headers.allow, 'POST')
    if (method !== 'HEAD') {
      t.equal(res.json().message, `No route found for "${method} http://localhost/ccenter/getConseillerByCode": Method Not Allowed (Allow: POST)`)
    }
  }
})

t.test('Allow lists methods uppercase, in declaration order, without HEAD', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.route({ method: ['put', 'patch'], url: '/test/items/:id', handler: async () => ({}) })
    app.delete('/test/items/:id', async () => ({}))
    app.get('/test/items/:id', async () => ({}))
  })
  const res = await app.inject({ method: 'POST', url: '/test/items/42' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'PUT, PATCH, DELETE, GET')
  t.match(res.json().message, /Method Not Allowed \(Allow: PUT, PATCH, DELETE, GET\)$/)
  t.equal((await app.inject({ method: 'HEAD', url: '/test/items/42' })).statusCode, 200, 'HEAD matches like GET')
})

t.test('GET/HEAD on a trailing-slash twin of a route is a 301 keeping the query string', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/docs/', async () => ({ ok: true }))
    app.get('/test/page', async () => ({ ok: true }))
  })
  const slash = await app.inject({ method: 'GET', url: '/test/docs?z=1&a=2', headers: { host: 'localhost:8000' } })
  t.equal(slash.statusCode, 301)
  t.equal(slash.headers.location, 'http://localhost:8000/test/docs/?z=1&a=2')
  const head = await app.inject({ method: 'HEAD', url: '/test/docs' })
  t.equal(head.statusCode, 301)
  t.equal(head.headers.location, 'http://localhost/test/docs/')
  const trimmed = await app.inject({ method: 'GET', url: '/test/page//' })
  t.equal(trimmed.statusCode, 301)
  t.equal(trimmed.headers.location, 'http://localhost/test/page')
  const post = await app.inject({ method: 'POST', url: '/test/docs' })
  t.equal(post.statusCode, 404, 'no redirect for POST')
})

t.test('the 404 keeps the match failure as its cause (checked through a test route reading it)', async t => {
  let seen = { message: '', cause: '' }
  const app = await buildTestApp(t, {}, app => {
    app.addHook('onResponse', async request => {
      const error = request.renderedError
      if (error !== null) seen = { message: error.message, cause: (error.cause as Error).message }
    })
  })
  const cases: Array<[string, string, string]> = [
    ['GET', '/robots.txt', 'No routes found for "/robots.txt/".'],
    ['HEAD', '/robots.txt', 'No routes found for "/robots.txt/".'],
    ['GET', '/robots.txt/', 'No routes found for "/robots.txt".'],
    ['POST', '/robots.txt', 'No routes found for "/robots.txt".'],
    ['GET', '/', 'No routes found for "/".']
  ]
  for (const [method, url, cause] of cases) {
    seen = { message: '', cause: '' }
    const res = await app.inject({ method: method as 'GET', url })
    t.equal(res.statusCode, 404)
    t.equal(seen.cause, cause, `${method} ${url}`)
  }
})

t.test('an unknown path is a 404 before its body is read', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/nope', headers: { 'content-type': 'application/json' }, payload: '{bad json' })
  t.equal(res.statusCode, 404)
  const other = await app.inject({ method: 'POST', url: '/nope', headers: { 'content-type': 'text/plain' }, payload: 'x' })
  t.equal(other.statusCode, 404)
})

t.test('a URL with a malformed percent-encoding is a 400 from the same error renderer', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ url: '/x/%E0%A4%A?q=1' })
  t.equal(res.statusCode, 400)
  t.same(res.json(), { statusCode: 400, error: 'Bad Request', message: "The request URL is not valid: '/x/%E0%A4%A?q=1' has a malformed percent-encoding" })
  const [profile] = await listProfiles(app, 'limit=1')
  t.match(profile, { token: res.headers['x-debug-token'], url: 'http://localhost/x/%E0%A4%A?q=1', status: 400 }, 'profiled with the URL as sent')
  const onRoute = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode%', headers: { accept: 'text/html' } })
  t.equal(onRoute.statusCode, 400)
  t.match(onRoute.headers['content-type'], /text\/html/, 'an HTML page for a browser')
  t.match(onRoute.body, 'has a malformed percent-encoding')
})
