// run-suite: shares a process
// A database URL is shown (start-up line, outage lines, the command line's errors) without its
// password in every form node-postgres reads one: the user info, `?password=` (any name that
// decodes to it), and the empty-host form `user:pw@/db?host=`. No server is needed: each URL
// points at a free port, so the store and the advisors are unreachable and their lines are written.
import t from 'tap'
import { buildApp } from '../../app.js'
import { freePort } from '../helpers/throwaway-cluster.js'
import { postJson, testConfig } from '../helpers/app.js'
import { profiler, profilerBin } from '../helpers/profiler-cli.js'
import { waitFor } from '../helpers/wait-for.js'

/** Characters a URL has to escape, and ones it does not. */
const PASSWORD = 'hunter2 p@ss/w%rd+Q'
const ENCODED = encodeURIComponent(PASSWORD)

/** Every way node-postgres (pg-connection-string) takes a password from a connection string. */
function urls (port: number): Record<string, string> {
  return {
    'user info': `postgres://app:${ENCODED}@127.0.0.1:${port}/db`,
    '?password=': `postgres://app@127.0.0.1:${port}/db?password=${ENCODED}`,
    '?password= among others, postgresql://': `postgresql://127.0.0.1:${port}/db?user=app&sslmode=disable&password=${ENCODED}&application_name=x`,
    'an escaped name (?pass%77ord=)': `postgres://app@127.0.0.1:${port}/db?pass%77ord=${ENCODED}`,
    'an upper-case escape (?%70ASSWORD= is not read, still masked)': `postgres://app@127.0.0.1:${port}/db?%70ASSWORD=${ENCODED}`,
    'an empty host (user:pw@/db?host=)': `postgres://app:${ENCODED}@/db?host=127.0.0.1&port=${port}`
  }
}

const leaks = (text: string): boolean => text.includes(PASSWORD) || text.includes(ENCODED) || text.includes('hunter2')

t.test('the start-up and outage lines of the service show no password, whichever form gave it', async t => {
  const port = await freePort()
  for (const [form, url] of Object.entries(urls(port))) {
    const lines: string[] = []
    const app = await buildApp(
      testConfig(t, { LOG_LEVEL: 'info', PROFILER_DATABASE_URL: url, DATABASE_URL: url }),
      { logStream: { write: line => { lines.push(line) } }, database: { retryDelayMs: 50 } }
    )
    t.teardown(async () => { await app.close() })
    await app.ready()
    t.equal((await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' })).statusCode, 503, `${form}: the advisors are unreachable`)
    await waitFor(() => lines.some(line => line.includes('is unavailable')), { what: `${form}: the outage line` })
    const startUp = lines.find(line => line.includes('Profiler: on, store PostgreSQL'))
    t.ok(startUp, `${form}: the start-up line names the store`)
    t.match(startUp, /store PostgreSQL postgres(ql)?:\/\/\S*\*\*\*/, `${form}: the start-up line shows the password as ***`)
    t.match(lines.find(line => line.includes('is unavailable')), /Database postgres(ql)?:\/\/\S*\*\*\*\S* is unavailable/, `${form}: so does the outage line`)
    t.notOk(lines.some(leaks), `${form}: no log line holds the password (${lines.filter(leaks).join(' | ').slice(0, 300)})`)
    await app.close()
  }
})

t.test('the command line\'s error line shows no password, whichever form gave it', async t => {
  const port = await freePort()
  // The first form through the built bin (its process's own output and exit), the others through
  // the same program in-process (docs/development.md: a few real runs of each bin are kept).
  for (const [i, [form, url]] of Object.entries(urls(port)).entries()) {
    const res = await (i === 0 ? profilerBin : profiler)(['search'], { PROFILER_DATABASE_URL: url })
    t.equal(res.code, 1, `${form}: exit 1`)
    t.match(res.stderr, /^profiler: Cannot reach the profile store postgres(ql)?:\/\/\S*\*\*\*\S*: /, `${form}: one line, the password as ***`)
    t.notOk(leaks(res.stderr + res.stdout), `${form}: no password (${res.stderr.trimEnd()})`)
  }
})
