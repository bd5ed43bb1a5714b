// run-suite: shares a process
// Nothing a person configured leaks (issue 37, items 5 and 6), on a real server process: a database
// URL whose password holds an unencoded '/' or '#' does not parse, and is never shown or stored in
// part (the environment panel says it could not be parsed); PROFILER_SECRET sent as the Host header,
// in a target or in a request the HTTP parser rejects, is redacted in the console's lines as in the
// profiles.
import { existsSync, readFileSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { UNPARSABLE_DATABASE_URL } from '../../lib/postgres/url.js'
import { basicAuth } from '../helpers/profiler.js'
import { rawAnswer } from '../helpers/raw-http.js'
import { startServer } from '../helpers/server.js'
import { sqlitePanels } from '../helpers/sqlite-panels.js'
import { waitFor } from '../helpers/wait-for.js'
import { freePort } from '../helpers/throwaway-cluster.js'

const SECRET = 'correct-horse-battery'
const PASSWORD = 'S3cr3t/Pa55#word'
/** Every piece of the password a partial parse could show: the port-like part, the path-like part, the fragment. */
const PIECES = ['S3cr3t', 'Pa55', '#word', SECRET]
const badUrl = (port: number): string => `postgres://profiler:${PASSWORD}@127.0.0.1:${port}/advisors`

const leaked = (text: string): string[] => PIECES.filter(piece => text.includes(piece))

// Two servers, side by side, their starts overlapping: one (an advisors URL that does not parse, the
// store on SQLite) for the first test's checks and then the second's, one (the store's URL that does
// not parse) for the third. The first two share a log and a store: each checks that nothing leaks
// into them, the second's rejection included in the first's reading of the store.
t.jobs = 2

t.test('one server (an advisors URL that does not parse, behind PROFILER_SECRET): nothing configured leaks', { buffered: true }, async t => {
  const server = await startServer(t, { DATABASE_URL: badUrl(await freePort()), PROFILER_SECRET: SECRET })

  await t.test('a database URL that does not parse: the environment panel says so, and nothing of it is shown', async t => {
    const answer = await rawAnswer(server.address, `GET /robots.txt?probe=${SECRET} HTTP/1.1\r\nHost: ${SECRET}\r\nConnection: close\r\n\r\n`)
    const token = answer.headers['x-debug-token'] ?? ''
    t.not(token, '', 'the request was profiled')
    const auth = { authorization: basicAuth(SECRET) }
    const page = `${server.address}/_profiler/${token}?panel=env`
    await waitFor(async () => (await fetch(page, { headers: auth })).status === 200, { what: 'the profile', retryOnError: true })

    const html = await (await fetch(page, { headers: auth })).text()
    t.match(html, `<tr><th class="mono">databaseUrl</th><td class="mono">${UNPARSABLE_DATABASE_URL}</td></tr>`, 'the page says the URL could not be parsed')
    t.same(leaked(html), [], 'the page shows nothing of the password or the secret')
    const json = await (await fetch(page, { headers: { ...auth, accept: 'application/json' } })).json() as { panels: { env: { configuration: Record<string, unknown> } } }
    t.equal(json.panels.env.configuration.databaseUrl, UNPARSABLE_DATABASE_URL, 'so does its JSON twin')
    t.same(leaked(JSON.stringify(json)), [])
  })

  await t.test('PROFILER_SECRET as the Host header of a request the HTTP parser rejects: not in the profile or the listing', async t => {
    const answer = await rawAnswer(server.address, `GET /scan/${SECRET} HTTP/1.1\r\nHost: ${SECRET}\r\na header line without a colon\r\n\r\n`)
    t.equal(answer.status, 400)
    const token = answer.headers['x-debug-token'] ?? ''
    t.not(token, '', 'the rejection was profiled')
    await waitFor(() => server.log().includes('request rejected by the HTTP parser'), { what: 'the rejection\'s line' })
    const headers = { authorization: basicAuth(SECRET), accept: 'application/json' }
    const profile = `${server.address}/_profiler/${token}`
    await waitFor(async () => (await fetch(profile, { headers })).status === 200, { what: 'the profile', retryOnError: true })
    const shown = await (await fetch(profile, { headers })).text() + await (await fetch(`${server.address}/_profiler/empty/search/results?limit=10`, { headers })).text()
    t.match(shown, '[redacted]', 'the profile and the listing were read')
    t.same(leaked(shown), [], 'the profile and the listing hold nothing of the secret')
  })

  // What both tests' requests left: the console's lines and the store.
  t.equal(await server.stop(), 0)
  const log = server.log()
  t.match(log, `Database ${UNPARSABLE_DATABASE_URL} is unavailable`, 'the outage line names no URL')
  t.match(log, '"host":"[redacted]"', 'the request line\'s host is redacted')
  t.match(log, 'request rejected by the HTTP parser', 'the rejection\'s line is among them')
  t.same(leaked(log), [], 'no log line holds the password or the secret')
  const store = storeFiles(log)
  t.ok(store.includes('robots.txt'), 'the store\'s bytes were read')
  t.same(leaked(store), [], 'the store holds nothing of the password or the secret')
})

t.test('a store URL that does not parse: the start-up and outage lines show nothing of it', { buffered: true }, async t => {
  const server = await startServer(t, { PROFILER_DATABASE_URL: badUrl(await freePort()), DATABASE_URL: badUrl(await freePort()), PROFILER_SECRET: SECRET })
  await fetch(`${server.address}/robots.txt`)
  t.equal(await server.stop(), 0)
  const log = server.log()
  t.match(log, `store PostgreSQL ${UNPARSABLE_DATABASE_URL}`, 'the start-up line says the URL could not be parsed')
  t.same(leaked(log), [], 'no line holds the password')
})

/** The SQLite store's bytes (file and WAL) and its profiles' panels decoded from their blocks, found from the start-up line that names it. */
function storeFiles (log: string): string {
  const path = /Profiler: on, store (\S+\.sqlite),/.exec(log)?.[1] ?? ''
  const bytes = [path, `${path}-wal`].filter(file => file !== '' && existsSync(file)).map(file => readFileSync(file).toString('latin1')).join('')
  if (path === '') return bytes
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return bytes + sqlitePanels(db).map(row => row.panels).join('')
  } finally {
    db.close()
  }
}
