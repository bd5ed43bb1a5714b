import { rmSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { buildTestApp, postJson } from '../helpers/app.js'
import { blockedDir } from '../helpers/blocked.js'
import { profileJson } from '../helpers/profiler.js'
import { waitFor } from '../helpers/wait-for.js'

const POLL = '/monitor/MonitorPooling'
const LOOKUP = '/ccenter/getConseillerByCode'

t.test('business database unavailable: 503 degraded poll, 503 lookup with a clear message, recovery by itself', async t => {
  const dir = blockedDir(t)
  const app = await buildTestApp(t, { DATABASE_PATH: join(dir, 'blocked', 'app.sqlite') }, undefined, { database: { retryDelayMs: 50 } })

  const poll = await app.inject({ method: 'POST', url: POLL })
  t.equal(poll.statusCode, 503)
  t.match(poll.json(), { status: 'degraded', checks: { database: 'failed' } })
  const lookup = await postJson(app, LOOKUP, { code: 'ADV1001' })
  t.equal(lookup.statusCode, 503)
  t.equal(lookup.json().message, 'The advisor database is unavailable at the moment; try again later')
  const html = await postJson(app, LOOKUP, { code: 'ADV1001' }, { accept: 'text/html' })
  t.equal(html.statusCode, 503)
  t.match(html.body, 'The advisor database is unavailable')
  const exception = (await profileJson(app, lookup.headers['x-debug-token'] as string, '?panel=exception')).panels.exception
  t.match(exception.chain, [{ name: 'ServiceUnavailableError' }, { message: /cannot open the SQLite database .*blocked\/app\.sqlite/ }], 'the profile says why')
  for (let i = 0; i < 20; i++) t.equal((await app.inject({ method: 'POST', url: POLL })).statusCode, 503, 'still standing')

  // The fault clears: a request after the retry delay opens, migrates and serves.
  rmSync(join(dir, 'blocked'))
  await waitFor(async () => (await app.inject({ method: 'POST', url: POLL })).statusCode === 200, { what: 'the database to open again' })
  const again = await app.inject({ method: 'POST', url: POLL })
  t.equal(again.statusCode, 200)
  t.equal(again.json().status, 'ok')
  t.equal((await postJson(app, LOOKUP, { code: 'ADV1001' })).json().lastName, 'Martin', 'sample advisors loaded on the late open (development)')
})

t.test('production masks unexpected 5xx messages but not a 503 that says what is down', async t => {
  const dir = blockedDir(t)
  const app = await buildTestApp(t, { NODE_ENV: 'production', DATABASE_PATH: join(dir, 'blocked', 'app.sqlite') })
  const lookup = await postJson(app, LOOKUP, { code: 'ADV1001' })
  t.equal(lookup.statusCode, 503)
  t.equal(lookup.json().message, 'The advisor database is unavailable at the moment; try again later')
  t.notMatch(lookup.body, /blocked|sqlite/, 'no file path reaches the client')
})
