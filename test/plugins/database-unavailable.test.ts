// run-suite: shares a process
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { buildApp } from '../../app.js'
import { buildTestApp, expectAdvisorsUnavailable, postJson, testConfig } from '../helpers/app.js'
import { blockedDir } from '../helpers/blocked.js'
import { profileJson } from '../helpers/profiler.js'
import { untilClock, waitFor } from '../helpers/wait-for.js'

/** The advisors' database retries opening at most this often by default (plugins/database.ts). */
const RETRY_DELAY_MS = 1000
const POLL = '/monitor/MonitorPooling'
const LOOKUP = '/ccenter/getConseillerByCode'

t.test('business database unavailable: 503 degraded poll, 503 lookup with a clear message, recovery by itself', async t => {
  const dir = blockedDir(t)
  const app = await buildTestApp(t, { DATABASE_PATH: join(dir, 'blocked', 'app.sqlite') }, undefined, { database: { retryDelayMs: 50 } })

  const lookup = await expectAdvisorsUnavailable(t, app)
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

t.test('an outage is logged once and its recovery once, however many requests meet it', async t => {
  const dir = blockedDir(t)
  const lines: string[] = []
  const app = await buildApp(testConfig(t, { LOG_LEVEL: 'info', DATABASE_PATH: join(dir, 'blocked', 'app.sqlite') }), { logStream: { write: line => { lines.push(line) } } })
  t.teardown(() => app.close())
  for (let round = 0; round < 2; round++) {
    const roundStart = Date.now()
    for (let i = 0; i < 5; i++) {
      t.equal((await app.inject({ method: 'POST', url: POLL })).statusCode, 503)
      t.equal((await postJson(app, LOOKUP, { code: 'ADV1001' })).statusCode, 503)
    }
    await untilClock(roundStart + RETRY_DELAY_MS) // past the retry delay: the next request tries to open again
  }
  const path = join(dir, 'blocked', 'app.sqlite')
  const mentioning = (pattern: RegExp): string[] => lines.filter(line => line.includes(path) && pattern.test(line))
  t.equal(mentioning(/is unavailable/).length, 1, 'one line for the outage')
  t.equal(lines.filter(line => /request failed|status poll/.test(line)).length, 0, 'no line per 503')

  rmSync(join(dir, 'blocked'))
  // A retry is due a delay after the last attempt, which came before now (a slow start can put it late in a round).
  await untilClock(Date.now() + RETRY_DELAY_MS)
  for (let i = 0; i < 3; i++) t.equal((await app.inject({ method: 'POST', url: POLL })).statusCode, 200)
  t.equal(mentioning(/available again/).length, 1, 'one line for the recovery')
  t.equal(mentioning(/is unavailable/).length, 1)
})
