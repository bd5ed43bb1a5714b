// run-suite: shares a process
// Properties of routing on generated paths: the route mirror that explains misses matches
// exactly what the app's router matches (same options), and hostile URLs are clear 4xx answers.
import fc from 'fast-check'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { hostileText } from '../helpers/hostile.js'

t.test('route mirror and router agree: a POST on a GET route is a 405 whatever the parameter length (a 150-character one was a 404)', async t => {
  const app = await buildTestApp(t, {}, app => {
    app.get('/test/items/:id', async () => ({ ok: true }))
  })
  const res = await app.inject({ method: 'POST', url: `/_profiler/${'a'.repeat(150)}` })
  t.equal(res.statusCode, 405, 'the profiler token route, 150 characters')
  t.equal(res.headers.allow, 'GET')
  const param = fc.stringMatching(/^[A-Za-z0-9._~-]{1,64}$/).chain(unit => fc.integer({ min: 1, max: Math.floor(16_384 / unit.length) })
    .map(times => unit.repeat(times).slice(0, 16_384)))
  await fc.assert(fc.asyncProperty(param, async id => {
    const get = await app.inject({ method: 'GET', url: `/test/items/${id}` })
    const post = await app.inject({ method: 'POST', url: `/test/items/${id}` })
    return get.statusCode === 200 && post.statusCode === 405 && post.headers.allow === 'GET'
  }), { numRuns: 60, seed: 9101 })
})

t.test('hostile paths and queries: never a 5xx, always profiled, a message on every 4xx', async t => {
  const app = await buildTestApp(t)
  await fc.assert(fc.asyncProperty(hostileText(300, 4), fc.constantFrom('GET', 'POST', 'DELETE'), async (text, method) => {
    const path = `/${encodeURI(text.replace(/[\uD800-\uDFFF]/g, '\uFFFD')).slice(0, 6000)}`
    for (const url of [path, `/ccenter/getConseillerByCode?${text.slice(0, 2000).replace(/[#\s]/g, '')}`, `/x/${text.replace(/[?#\s]/g, '').slice(0, 2000)}`]) {
      const res = await app.inject({ method: method as 'GET', url })
      if (res.statusCode >= 500 || res.headers['x-debug-token'] === undefined) return false
      if (res.statusCode >= 400 && typeof res.json().message !== 'string') return false
    }
    return true
  }), { numRuns: 50, seed: 9102 })
})
