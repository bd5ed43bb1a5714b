// run-suite: shares a process
// The route statistics by deployment, on both engines: two deployments writing one store (a SQLite
// file, or a PostgreSQL database, shared by two apps), each read alone or both together; and the
// rollup rows of a store migrated from before the deployment was a key.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import t, { type Test } from 'tap'
import { migrate } from '../../lib/sqlite/migrate.js'
import { migratePostgres } from '../../lib/postgres/migrate.js'
import { profilerPostgresMigrationsDir, profilerSqliteMigrationsDir } from '../../paths.js'
import { PROFILER_MIGRATIONS_TABLE } from '../../plugins/profiler/engine/postgres/writer.js'
import { buildTestApp } from '../helpers/app.js'
import { routeFigures, statsJson } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'

const engines = storeEngines(t)
const JSON_ACCEPT = { accept: 'application/json' }

type Line = Record<string, any>
const summary = (routes: Line[]): string[] => routes.map(r => `${r.method ?? '-'} ${r.route ?? r.status} ${r.count} 2xx=${r.statusClasses['2xx']}`).sort()

/** The migrations of `dir` up to `version`, copied to a folder of their own. */
function migrationsUpTo (t: Test, dir: string, version: number): string {
  const copy = mkdtempSync(join(tmpdir(), 'migrations-'))
  t.teardown(() => { rmSync(copy, { recursive: true, force: true }) })
  for (const file of readdirSync(dir)) if (Number(file.slice(0, 3)) <= version) copyFileSync(join(dir, file), join(copy, file))
  return copy
}

const OLD_ROW = `INSERT INTO profile_route_stats (span_ms, start_ms, method, route, status, count, status_1xx, status_2xx, status_3xx, status_4xx, status_5xx, sum_ms, max_ms, histogram)
  VALUES (3600000, $START, 'GET', '/old/:id', 0, 4, 0, 4, 0, 0, 0, 8, 3, $HISTOGRAM)`

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const { fresh, unmigrated } = engine

    t.test('two deployments writing one store: ?deployment= reads one, none reads both together', async t => {
      const store = await fresh(t)
      const a = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'A' })
      const b = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'B' })
      for (let i = 0; i < 3; i++) await a.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
      await a.inject({ url: '/missing' })
      for (let i = 0; i < 2; i++) await b.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
      await b.inject({ url: '/monitor/MonitorPooling' })
      await a.profileStore.flush()
      await b.profileStore.flush()

      const ofA = await statsJson(b, '?deployment=A')
      t.equal(ofA.deployment, 'A')
      t.same(summary(ofA.routes), ['- 404 1 2xx=0', 'POST /monitor/MonitorPooling 3 2xx=3'], 'A alone, read from B')
      t.same(summary((await statsJson(a, '?deployment=B&window=24h')).routes), ['- 405 1 2xx=0', 'POST /monitor/MonitorPooling 2 2xx=2'], 'B alone, read from A')
      const all = await statsJson(a)
      t.equal(all.deployment, null)
      t.same(summary(all.routes), ['- 404 1 2xx=0', '- 405 1 2xx=0', 'POST /monitor/MonitorPooling 5 2xx=5'], 'both together')
      t.same(routeFigures((await statsJson(a, '?deployment=')).routes), routeFigures(all.routes), 'an empty deployment is none')
      t.same((await statsJson(a, '?deployment=a')).routes, [], 'the name is exact')

      // Each line lists exactly its deployment's requests.
      for (const line of ofA.routes) {
        t.match(line.listing, /^\/_profiler\/empty\/search\/results\?deployment=A&/)
        const listed = (await a.inject({ url: line.listing, headers: JSON_ACCEPT })).json().results as Array<{ deployment: string }>
        t.equal(listed.length, line.count)
        t.ok(listed.every(p => p.deployment === 'A'))
      }

      const page = (await a.inject({ url: '/_profiler/stats?window=24h&deployment=B' })).body
      t.match(page, /<nav class="tabs" id="stats-deployments" aria-label="Deployments"><a href="\/_profiler\/stats\?window&#x3D;24h">All deployments<\/a><a href="[^"]+">A<\/a><a href="\/_profiler\/stats\?window&#x3D;24h&amp;deployment&#x3D;B" class="active" aria-current="page">B<\/a><\/nav>/)
      t.match(page, /<a href="\/_profiler\/stats\?window&#x3D;7d&amp;deployment&#x3D;B">Last 7d<\/a>/, 'the windows keep the deployment')
      t.match(page, /Requests recorded by deployment <strong>B<\/strong>, from <time/)
      const hostile = (await a.inject({ url: '/_profiler/stats?deployment=%3Cb%3E' })).body
      t.match(hostile, /deployment <strong>&lt;b&gt;<\/strong>/, 'escaped')
      t.equal((await a.inject({ url: `/_profiler/stats?deployment=${'x'.repeat(65)}`, headers: JSON_ACCEPT })).statusCode, 400, 'at most 64 characters')
    })

    t.test('rows from before the deployment was a key get the store\'s one deployment', async t => {
      const store = await unmigrated(t)
      const hourMs = Math.floor(Date.now() / 3_600_000) * 3_600_000
      const histogram = Buffer.from([0x50, 0x00, 0x04, 0x00, 0x00, 0x00]) // bucket 80, 4 requests
      if (engine.name === 'sqlite') {
        const db = new Database(store.PROFILER_DATABASE_PATH)
        migrate(db, migrationsUpTo(t, profilerSqliteMigrationsDir, 3))
        db.prepare("INSERT INTO profile_deployments (name) VALUES ('old')").run()
        db.prepare(OLD_ROW.replace('$START', '?').replace('$HISTOGRAM', '?')).run(hourMs, histogram)
        db.close()
      } else {
        const pool = new pg.Pool({ connectionString: store.PROFILER_DATABASE_URL })
        await migratePostgres(pool, migrationsUpTo(t, profilerPostgresMigrationsDir, 4), PROFILER_MIGRATIONS_TABLE)
        await pool.query("INSERT INTO profile_deployments (name) VALUES ('old')")
        await pool.query(OLD_ROW.replace('$START', '$1').replace('$HISTOGRAM', '$2'), [hourMs, histogram])
        await pool.end()
      }
      const app = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'new' })
      await app.inject({ url: '/missing' })
      await app.profileStore.flush()
      t.same(summary((await statsJson(app, '?deployment=old&window=24h')).routes), ['GET /old/:id 4 2xx=4'], 'the old rows are the old deployment\'s')
      t.same(summary((await statsJson(app, '?deployment=new&window=24h')).routes), ['- 404 1 2xx=0'])
      t.equal((await statsJson(app, '?window=24h')).routes.length, 2)
    })
  })
}
