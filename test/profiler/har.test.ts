// run-suite: shares a process
import { createRequire } from 'node:module'
import t from 'tap'
import { buildTestApp, postJson } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { listProfiles } from '../helpers/profiler.js'

const require = createRequire(import.meta.url)
// har-validator ships no types: its promise API resolves the document or rejects with the schema errors.
const { har: validateHar } = require('har-validator') as { har: (document: unknown) => Promise<unknown> }

const SECRETS = ['hunter2-pass', 'abc.def.ghi', 's3ss10n-cookie', 'qs-token-77']

async function assertValid (t: { pass: (message: string) => void, fail: (message: string) => void }, document: unknown): Promise<void> {
  try {
    await validateHar(document)
    t.pass('valid HAR 1.2')
  } catch (err) {
    t.fail(`invalid HAR: ${JSON.stringify((err as { errors?: unknown }).errors ?? String(err))}`)
  }
}

t.test('GET /_profiler/<token>/har: one profile as a valid HAR 1.2 document, nothing redacted in clear', async t => {
  const app = await buildTestApp(t)
  const res = await postJson(app, `/ccenter/getConseillerByCode?token=${SECRETS[3] ?? ''}&x=1`, { code: 'ADV1001', password: SECRETS[0] },
    { authorization: `Bearer ${SECRETS[1] ?? ''}`, cookie: `sid=${SECRETS[2] ?? ''}` })
  const token = tokenOf(res)
  await app.profileStore.flush()
  const har = await app.inject({ url: `/_profiler/${token}/har` })
  t.equal(har.statusCode, 200)
  t.match(har.headers['content-type'], /^application\/json/)
  t.equal(har.headers['content-disposition'], `attachment; filename="profile-${token}.har"`)
  for (const secret of SECRETS) t.notOk(har.body.includes(secret), `${secret} is not in the HAR`)
  const document = har.json()
  await assertValid(t, document)
  t.equal(document.log.version, '1.2')
  t.equal(document.log.entries.length, 1)
  const [entry] = document.log.entries
  t.match(entry.request, {
    method: 'POST',
    url: 'http://localhost/ccenter/getConseillerByCode?token=%5Bredacted%5D&x=1',
    httpVersion: 'HTTP/1.1',
    queryString: [{ name: 'token', value: '[redacted]' }, { name: 'x', value: '1' }],
    postData: { mimeType: 'application/json', text: '{"code":"ADV1001","password":"[redacted]"}' }
  })
  t.same(entry.request.headers.filter((h: { name: string }) => ['authorization', 'cookie'].includes(h.name)),
    [{ name: 'authorization', value: '[redacted]' }, { name: 'cookie', value: '[redacted]' }])
  t.match(entry.response, { status: 200, statusText: 'OK', content: { mimeType: 'application/json; charset=utf-8' } })
  t.match(JSON.parse(entry.response.content.text), { code: 'ADV1001', lastName: 'Martin' })
  t.equal(entry._token, token)
  t.equal(entry._route, '/ccenter/getConseillerByCode')
  t.equal(entry.startedDateTime, (await listProfiles(app, 'limit=1'))[0]?.time)
  t.ok(Math.abs(entry.time - (entry.timings.wait + entry.timings.receive)) < 0.002, 'time is the sum of the timings')
  const phases = entry._phases
  t.ok(Math.abs(entry.timings.wait - (phases.beforeHandlerMs + phases.handlerMs)) < 0.01, 'wait: before and in the handler')

  const broken = structuredClone(document)
  delete broken.log.entries[0].request.url
  await t.rejects(validateHar(broken), 'the validator does refuse an invalid document')

  const latest = await app.inject({ url: '/_profiler/latest/har' })
  t.equal(latest.json().log.entries[0]._token, token)
  const missing = await app.inject({ url: '/_profiler/abc123/har', headers: { accept: 'application/json' } })
  t.equal(missing.statusCode, 404)
})

t.test('GET /_profiler/<token|empty>/search/har: the listing\'s profiles in one HAR, with the listing\'s filters', async t => {
  const app = await buildTestApp(t)
  await app.inject({ url: '/robots.txt' })
  await app.inject({ method: 'HEAD', url: '/monitor/MonitorPooling' })
  await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1&b=x%20y' })
  await app.inject({ url: '/nope/%3Cscript%3E' })
  const listed = await listProfiles(app, 'status_code=404')
  const har = await app.inject({ url: '/_profiler/empty/search/har?status_code=404&limit=10' })
  t.equal(har.statusCode, 200)
  t.equal(har.headers['content-disposition'], 'attachment; filename="profiles.har"')
  const document = har.json()
  await assertValid(t, document)
  t.same(document.log.entries.map((entry: { _token: string }) => entry._token), listed.map(p => p.token).reverse(), 'the listing\'s profiles, oldest first')
  t.ok(document.log.entries.every((entry: { response: { status: number } }) => entry.response.status === 404))

  const all = (await app.inject({ url: '/_profiler/empty/search/har?limit=100' })).json()
  await assertValid(t, all)
  t.equal(all.log.entries.length, 4)
  const form = all.log.entries.find((entry: { request: { method: string } }) => entry.request.method === 'POST')
  t.match(form.request.postData, { mimeType: 'application/x-www-form-urlencoded', text: 'a=1&b=x+y' })
  const bad = await app.inject({ url: '/_profiler/empty/search/har?limit=abc', headers: { accept: 'application/json' } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /Invalid "limit" parameter "abc"/)
  const none = (await app.inject({ url: '/_profiler/empty/search/har?status_code=418' })).json()
  await assertValid(t, none)
  t.same(none.log.entries, [])
  const page = await app.inject({ url: '/_profiler/empty/search/results?status_code=404', headers: { accept: 'text/html' } })
  t.match(page.body, /<a href="\/_profiler\/empty\/search\/har\?status_code&#x3D;404&amp;type&#x3D;request" id="search-har">/)
})
