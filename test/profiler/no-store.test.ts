// run-suite: shares a process
// Profiler answers hold recorded requests: no browser or shared cache may keep one, errors included.
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { basicAuth, listProfiles } from '../helpers/profiler.js'

const SECRET = 'a-long-enough-profiler-secret'
const ACCEPTS = ['text/html', 'application/json']

t.test('every profiler answer, HTML, JSON, HAR, cURL and their errors, says Cache-Control: no-store', async t => {
  const app = await buildTestApp(t)
  await app.inject({ url: '/robots.txt' })
  const [profile] = await listProfiles(app, 'limit=1')
  const token = profile?.token ?? ''
  const answers: Array<[string, number, Record<string, string>?]> = [
    ['/_profiler/', 302],
    ['/_profiler/search?limit=10', 302],
    ['/_profiler/empty/search/results?limit=10', 200],
    [`/_profiler/${token}`, 200],
    [`/_profiler/${token}?panel=router`, 200],
    ['/_profiler/latest', 200],
    [`/_profiler/${token}/har`, 200],
    [`/_profiler/${token}/curl`, 200],
    ['/_profiler/empty/search/har?limit=10', 200],
    ['/_profiler/stats', 200],
    ['/_profiler/abcdef', 404],
    ['/_profiler/abcdef/curl', 404],
    ['/_profiler/abcdef/har', 404],
    [`/_profiler/${token}?panel=nope`, 404],
    ['/_profiler/empty/search/results?limit=abc', 400],
    ['/_profiler/latest', 403, { host: 'rebound.example' }]
  ]
  for (const [url, status, headers = {}] of answers) {
    for (const accept of ACCEPTS) {
      const res = await app.inject({ url, headers: { accept, ...headers } })
      t.equal(res.statusCode, status, `${url} (${accept}${headers.host === undefined ? '' : `, Host ${headers.host}`})`)
      t.equal(res.headers['cache-control'], 'no-store', `${url} (${accept}): no-store`)
    }
  }
})

t.test('with a secret: the 401s, and the answers behind the login, say no-store too', async t => {
  const app = await buildTestApp(t, { PROFILER_SECRET: SECRET })
  for (const accept of ACCEPTS) {
    for (const authorization of [undefined, basicAuth('wrong-password-here')]) {
      const refused = await app.inject({ url: '/_profiler/latest', headers: { accept, ...(authorization === undefined ? {} : { authorization }) } })
      t.equal(refused.statusCode, 401)
      t.equal(refused.headers['cache-control'], 'no-store', `401 (${accept}${authorization === undefined ? '' : ', wrong password'})`)
    }
    const listing = await app.inject({ url: '/_profiler/empty/search/results', headers: { accept, authorization: basicAuth(SECRET) } })
    t.equal(listing.statusCode, 200)
    t.equal(listing.headers['cache-control'], 'no-store', `the listing (${accept})`)
  }
})
