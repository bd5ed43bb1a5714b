// npm run build:test && tsc -p bench/tsconfig.json && node dist-bench/bench/stored-bytes.js [--requests=20000]:
// the bytes a stored profile of the seed-like mix takes on disk (issue 38: at most 1,500). The
// requests go through the whole app (app.inject, every panel on, every request kept) into a fresh
// SQLite store; then the store's file and its WAL, divided by the profiles stored. Not a timing.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import { mixRequest } from './load.js'
import { randomSource } from './seed.js'

const requests = Number(process.argv.find(arg => arg.startsWith('--requests='))?.slice('--requests='.length) ?? 20_000)
const dir = mkdtempSync(join(tmpdir(), 'stored-bytes-'))
const path = join(dir, 'profiler.sqlite')
const sizeOf = (file: string): number => { try { return statSync(file).size } catch { return 0 } }

try {
  const app = await buildApp(loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    DATABASE_PATH: join(dir, 'app.sqlite'),
    PROFILER: 'on',
    PROFILER_DATABASE_PATH: path,
    MAX_EVENT_LOOP_DELAY: '0ms',
    PROFILER_WRITER: 'inline'
  }))
  await app.ready()
  const random = randomSource(7)
  for (let i = 0; i < requests; i++) {
    const { method, path: url, body } = mixRequest('seed-like', random)
    await app.inject({ method, url, headers: { 'content-type': 'application/json', 'user-agent': 'autocannon/9.0.0' }, ...(body === undefined ? {} : { payload: body }) })
    if (i % 500 === 499) await app.profileStore.flush()
  }
  await app.profileStore.flush()
  const db = new BetterSqlite3(path, { readonly: true })
  const profiles = db.prepare('SELECT count(*) FROM profiles').pluck().get() as number
  const panelBytes = db.prepare('SELECT sum(octet_length(panels)) FROM profile_data').pluck().get() as number
  db.close()
  const file = sizeOf(path)
  const wal = sizeOf(`${path}-wal`)
  process.stdout.write(`${requests} requests of the seed-like mix, ${profiles} profiles stored\n`)
  process.stdout.write(`file ${file} B + WAL ${wal} B = ${Math.round((file + wal) / profiles)} B a profile (panels column: ${Math.round(panelBytes / profiles)} B a profile)\n`)
  await app.close()
  process.stdout.write(`after close (checkpointed): ${Math.round((sizeOf(path) + sizeOf(`${path}-wal`)) / profiles)} B a profile\n`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
