import { join } from 'node:path'
import t from 'tap'
import { runNode } from './helpers/run.js'
import { startServer } from './helpers/server.js'

t.test('dist/server.js serves on a real port and stops cleanly on SIGTERM', async t => {
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

  t.equal(await server.stop('SIGTERM'), 0, 'exits 0 after a graceful close')
  t.match(server.log(), /SIGTERM received: shutting down/)
})

t.test('a bad environment value exits non-zero with one line', async t => {
  const res = await runNode('server.js', [], { PORT: 'eighty' })
  t.equal(res.code, 1)
  t.equal(res.stderr, 'Invalid environment: PORT must be integer (got "eighty")\n')
})

t.test('a database that cannot be opened or migrated stops the start with its cause', async t => {
  const dir = t.testdir({ 'app.sqlite': {} })
  const res = await runNode('server.js', [], { PORT: '0', LOG_LEVEL: 'silent', DATABASE_PATH: join(dir, 'app.sqlite') })
  t.equal(res.code, 1)
  t.equal(res.stderr, `Cannot start: cannot open the SQLite database ${join(dir, 'app.sqlite')}: unable to open database file\n`)
})
