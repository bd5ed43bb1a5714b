// run-suite: shares a process
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'

function withBoom (app: Parameters<NonNullable<Parameters<typeof buildTestApp>[2]>>[0]) {
  app.get('/test/boom', async () => { throw new Error('secret detail from the database layer') })
}

t.test('JSON by default and for Accept: application/json', async t => {
  const app = await buildTestApp(t)
  for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
    const res = await app.inject({ url: '/nope', headers: accept === undefined ? {} : { accept } })
    t.match(res.headers['content-type'], /^application\/json/, String(accept))
    t.same(Object.keys(res.json()), ['statusCode', 'error', 'message'])
  }
})

t.test('an HTML page for clients that prefer text/html, with the message escaped', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({
    url: '/x<script>alert(1)</script>',
    headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', referer: '"><img src=x onerror=alert(1)>' }
  })
  t.equal(res.statusCode, 404)
  t.match(res.headers['content-type'], /^text\/html/)
  t.match(res.body, /<title>404 Not Found<\/title>/)
  t.match(res.body, /HTTP 404 Not Found/)
  // The URL arrives percent-encoded; the Referer header carries markup as is and must come out escaped.
  t.match(res.body, /No route found for &quot;GET http:\/\/localhost\/x%3Cscript%3Ealert\(1\)%3C\/script%3E&quot;/)
  t.match(res.body, /\(from &quot;&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert\(1\)&gt;&quot;\)/)
  t.notMatch(res.body, /<script>alert/)
  t.notMatch(res.body, /<img src=x/)
})

t.test('a 5xx shows its message outside production', async t => {
  const app = await buildTestApp(t, {}, withBoom)
  const res = await app.inject({ url: '/test/boom' })
  t.equal(res.statusCode, 500)
  t.same(res.json(), { statusCode: 500, error: 'Internal Server Error', message: 'secret detail from the database layer' })
})

t.test('a 5xx message is masked in production, in JSON and HTML', async t => {
  const app = await buildTestApp(t, { NODE_ENV: 'production' }, withBoom)
  const res = await app.inject({ url: '/test/boom' })
  t.equal(res.statusCode, 500)
  t.same(res.json(), { statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' })
  const html = await app.inject({ url: '/test/boom', headers: { accept: 'text/html' } })
  t.notMatch(html.body, /secret detail/)
  const notFound = await app.inject({ url: '/nope' })
  t.equal(notFound.json().message, 'No route found for "GET http://localhost/nope"', '4xx messages stay')
})

t.test('the HTML error page has the profiler pages\' policy: no script, no framing, no sniffing', async t => {
  const app = await buildTestApp(t)
  const page = await app.inject({ url: '/no/such/page', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 404)
  const profilerPage = await app.inject({ url: '/_profiler/stats', headers: { accept: 'text/html' } })
  t.equal(profilerPage.statusCode, 200)
  const csp = String(page.headers['content-security-policy'])
  t.equal(csp, profilerPage.headers['content-security-policy'], 'the same policy as the profiler pages')
  t.match(csp, /default-src 'none'/)
  t.match(csp, /frame-ancestors 'none'/)
  t.match(csp, /style-src 'sha256-/)
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  const json = await app.inject({ url: '/no/such/page' })
  t.equal(json.headers['content-security-policy'], undefined, 'JSON answers carry no page policy')
})
