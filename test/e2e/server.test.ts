// run-suite: shares a process
import { join } from 'node:path'
import t from 'tap'
import { blockedDir } from '../helpers/blocked.js'
import { runNode } from '../helpers/run.js'
import { startServer } from '../helpers/server.js'
import { untilClock } from '../helpers/wait-for.js'

// Independent child processes: the three tests run side by side.
t.jobs = 3

t.test('dist/server.js serves on a real port and stops cleanly on SIGTERM', { buffered: true }, async t => {
  const server = await startServer(t)
  const { address } = server
  t.match(server.log(), /migrated from version 0 to 1/)
  t.match(server.log(), /Loaded 36 sample advisors/)

  const poll = await fetch(`${address}/monitor/MonitorPooling`, { method: 'POST' })
  t.equal(poll.status, 200)
  t.equal((await poll.json() as { status: string }).status, 'ok')
  const lookup = await fetch(`${address}/ccenter/getConseillerByCode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"code":"ADV1001"}' })
  t.equal((await lookup.json() as { lastName: string }).lastName, 'Martin')
  const missing = await fetch(`${address}/robots.txt`)
  t.equal(missing.status, 404)
  t.equal((await missing.json() as { message: string }).message, `No route found for "GET ${address}/robots.txt"`)

  const code = await server.stop('SIGTERM')
  // Seen once beside CI's CPU hog (exit 1): the server's last lines say why when it happens again.
  t.equal(code, 0, `exits 0 after a graceful close${code === 0 ? '' : `; its last lines: ${server.log().slice(-2000)}`}`)
  t.match(server.log(), /SIGTERM received: shutting down/)
})

t.test('a bad environment value exits non-zero with one line', { buffered: true }, async t => {
  const res = await runNode('server.js', [], { PORT: 'eighty' })
  t.equal(res.code, 1)
  t.equal(res.stderr, 'Invalid environment: PORT must be integer (got "eighty")\n')
})

t.test('a database that cannot be opened: the service starts degraded and says why, once', { buffered: true }, async t => {
  const path = join(blockedDir(t), 'blocked', 'app.sqlite')
  const server = await startServer(t, { DATABASE_PATH: path })
  for (let i = 0; i < 3; i++) {
    const sent = Date.now()
    const poll = await fetch(`${server.address}/monitor/MonitorPooling`, { method: 'POST' })
    t.equal(poll.status, 503)
    t.equal((await poll.json() as { status: string }).status, 'degraded')
    // Past the one-second retry delay: each poll is a new attempt to open the database.
    await untilClock(sent + 1000)
  }
  t.equal(await server.stop(), 0)
  const lines = server.log().split('\n').filter(line => line.includes('is unavailable (requests that need it answer 503)'))
  t.equal(lines.length, 1, 'logged once, not on every retry')
  t.match(lines[0], `cannot open the SQLite database ${path}: EEXIST`)
})
