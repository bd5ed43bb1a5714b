import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../paths.js'
import { runNode } from './helpers/run.js'

const SERVER = join(packageRoot, 'dist', 'server.js')

t.test('dist/server.js serves on a real port and stops cleanly on SIGTERM', async t => {
  const dir = t.testdir()
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', DATABASE_PATH: join(dir, 'var', 'app.sqlite'), PROFILER_DATABASE_PATH: join(dir, 'var', 'profiler.sqlite') },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let log = ''
  child.stderr.on('data', chunk => { log += String(chunk) })
  const address = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', chunk => {
      log += String(chunk)
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
      if (match?.[1] !== undefined) resolve(match[1])
    })
    child.on('exit', code => reject(new Error(`server exited early (${code}): ${log}`)))
  })
  t.match(log, /migrated from version 0 to 1/)
  t.match(log, /Loaded 36 sample advisors/)

  const poll = await fetch(`${address}/monitor/MonitorPooling`, { method: 'POST' })
  t.equal(poll.status, 200)
  t.equal((await poll.json() as { status: string }).status, 'ok')
  const lookup = await fetch(`${address}/ccenter/getConseillerByCode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"code":"ADV1001"}' })
  t.equal((await lookup.json() as { lastName: string }).lastName, 'Martin')
  const missing = await fetch(`${address}/robots.txt`)
  t.equal(missing.status, 404)
  t.equal((await missing.json() as { message: string }).message, `No route found for "GET ${address}/robots.txt"`)

  child.kill('SIGTERM')
  const [code] = await once(child, 'exit') as [number | null]
  t.equal(code, 0, 'exits 0 after a graceful close')
  t.match(log, /SIGTERM received: shutting down/)
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
