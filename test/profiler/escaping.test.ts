// run-suite: shares a process
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'

const XSS = '<script>alert("xss")</script><img src=x onerror=alert(1)>'
const MARKUP = /<script>alert|<img src=x/

t.test('every value that came from a request is escaped on every page', async t => {
  const app = await buildTestApp(t)
  const headers = { referer: `http://evil.example/${XSS}`, 'user-agent': XSS, 'x-note': XSS, 'content-type': 'application/json', accept: 'text/html' }
  const pathAttack = `/${encodeURIComponent(XSS)}?q=${encodeURIComponent(XSS)}`
  const notFound = await app.inject({ method: 'POST', url: pathAttack, headers, payload: '{}' })
  t.equal(notFound.statusCode, 404)
  t.notMatch(notFound.body, MARKUP, 'the HTML error page escapes the URL and the referer')
  t.match(notFound.body, '&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;')
  const invalid = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', headers, payload: JSON.stringify({ code: XSS, [XSS]: XSS }) })
  t.equal(invalid.statusCode, 404, 'an unknown code')
  t.notMatch(invalid.body, MARKUP)
  const badJson = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', headers, payload: `{"code": ${XSS}` })
  t.equal(badJson.statusCode, 400)
  t.notMatch(badJson.body, MARKUP)
  await app.profileStore.flush()

  const pages = ['/_profiler/empty/search/results?limit=10', `/_profiler/empty/search/results?url=${encodeURIComponent(XSS)}&ip=${encodeURIComponent(XSS)}`]
  for (const res of [notFound, invalid, badJson]) {
    for (const panel of ['request', 'exception', 'router', 'performance']) pages.push(`/_profiler/${String(res.headers['x-debug-token'])}?panel=${panel}`)
  }
  let shown = 0
  for (const url of pages) {
    const page = await app.inject({ url, headers: { accept: 'text/html' } })
    t.ok(page.statusCode === 200 || page.statusCode === 400, `${url}: ${page.statusCode}`)
    t.notMatch(page.body, MARKUP, `${url}: no markup from the request`)
    if (page.body.includes('&lt;script&gt;alert(')) shown++
  }
  t.ok(shown >= 5, `the values are shown, escaped, on ${shown} pages`)
})
