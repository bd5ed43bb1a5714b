// run-suite: shares a process
// The environment panel on both store engines: per process, stored once (one row of
// profile_processes that every profile of the process names), a changed configuration its own row,
// secrets and URL passwords never stored, shown on the page, its JSON twin, the CLI and MCP, and
// the rows no profile names any more removed by retention.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { packageRoot } from '../../paths.js'
import { buildTestApp } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { queryOn } from '../helpers/postgres.js'
import { basicAuth, profileJson, storeOnly } from '../helpers/profiler.js'
import { profiler } from '../helpers/profiler-cli.js'
import { startServer, UNCOVERED } from '../helpers/server.js'
import { sqlitePanels } from '../helpers/sqlite-panels.js'
import { storeEngines } from '../helpers/store-engines.js'

const engines = storeEngines(t)

const SECRET = 'env-panel-secret-0123456789'
/** The advisors on an unreachable PostgreSQL: never connected to, its password never stored. */
const DATABASE_URL = 'postgres://advisor:db-pass-4321@127.0.0.1:9/advisors'

/** What git says the checkout is at; null when the package is not a git checkout. */
function gitHead (): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: packageRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return null
  }
}

const versionIn = (path: string): string => (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version

/** The rows a store's profile_processes holds, and the key each profile's data names, on either engine. */
async function storedProcesses (env: Record<string, string>): Promise<{ rows: Array<{ key: string, panels: string }>, named: string[] }> {
  const url = env.PROFILER_DATABASE_URL
  if (url !== undefined) {
    const rows = await queryOn(url, 'SELECT key, panels FROM profile_processes ORDER BY key') as Array<{ key: string, panels: string }>
    const named = (await queryOn(url, 'SELECT process_key FROM profile_data ORDER BY id')).map(row => row.process_key as string)
    return { rows, named }
  }
  const db = new BetterSqlite3(env.PROFILER_DATABASE_PATH ?? '', { readonly: true })
  try {
    const rows = db.prepare('SELECT key, panels FROM profile_processes ORDER BY key').all() as Array<{ key: string, panels: string }>
    const named = sqlitePanels(db).map(row => row.processKey as string)
    return { rows, named }
  } finally {
    db.close()
  }
}

/** Every text the store holds, as bytes (the SQLite file and its WAL, and its blocks' panels decoded) or as the rows' text (PostgreSQL). */
async function storedText (env: Record<string, string>): Promise<string> {
  const url = env.PROFILER_DATABASE_URL
  if (url !== undefined) {
    const rows = await queryOn(url, "SELECT (SELECT string_agg(panels, '') FROM profile_processes) || (SELECT string_agg(panels, '') FROM profile_data) AS text")
    return String(rows[0]?.text ?? '')
  }
  const path = env.PROFILER_DATABASE_PATH ?? ''
  const bytes = [path, `${path}-wal`].filter(file => existsSync(file)).map(file => readFileSync(file).toString('latin1')).join('')
  // The profiles' own panels are compressed in their blocks: read decoded too.
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return bytes + sqlitePanels(db).map(row => row.panels).join('')
  } finally {
    db.close()
  }
}

async function flushed (app: FastifyInstance): Promise<void> {
  await app.profileStore.flush()
}

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const { fresh } = engine

    t.test('one stored row for every profile of a process: versions, commit, deployment, start, configuration redacted', async t => {
      const env = await fresh(t)
      const app = await buildTestApp(t, { ...env, PROFILER_SECRET: SECRET, DATABASE_URL, PROFILER_DEPLOYMENT: 'env-A' })
      const first = tokenOf(await app.inject({ url: '/robots.txt' }))
      const second = tokenOf(await app.inject({ url: `/nowhere?token=${SECRET}` }))
      await flushed(app)
      const a = (await profileJson(app, first)).panels.env
      const b = (await profileJson(app, second)).panels.env
      t.same(b, a, 'both profiles show the same environment')
      t.match(a, {
        version: versionIn(join(packageRoot, 'package.json')),
        commit: gitHead(),
        node: process.version,
        fastify: versionIn(createRequire(import.meta.url).resolve('fastify/package.json')),
        deployment: 'env-A',
        nodeEnv: 'development'
      })
      const started = Date.parse(a.startedAt)
      t.ok(started <= Date.now() && started > Date.now() - 3_600_000, `the process's start: ${String(a.startedAt)}`)
      t.equal(a.configuration.profilerSecret, '[redacted]', 'the profiler secret')
      t.equal(a.configuration.databaseUrl, 'postgres://advisor:***@127.0.0.1:9/advisors', 'the advisors\' URL without its password')
      t.equal(a.configuration.profilerDeployment, 'env-A')
      t.equal(a.configuration.port, app.config.port)
      if (env.PROFILER_DATABASE_URL !== undefined) t.notMatch(a.configuration.profilerDatabaseUrl, 'test-password', 'the store\'s URL without its password')
      t.notMatch(JSON.stringify(a), SECRET)

      const { rows, named } = await storedProcesses(env)
      t.equal(rows.length, 1, 'one row in profile_processes')
      t.same(named, [rows[0]?.key, rows[0]?.key], 'both profiles name it')
      const text = await storedText(env)
      t.ok(text.includes('"env-A"'), 'the stored text was read')
      for (const secret of [SECRET, 'db-pass-4321', 'test-password']) t.notOk(text.includes(secret), `${secret} is not stored`)
    })

    t.test('a changed configuration gets its own row; retention removes the rows no profile names any more', async t => {
      const env = await fresh(t)
      const a = await buildTestApp(t, { ...env, PROFILER_DEPLOYMENT: 'A', PROFILER_MAX_AGE: '60s' })
      const fromA = tokenOf(await a.inject({ url: '/from-a' }))
      await a.inject({ url: '/from-a/2' })
      await flushed(a)
      await a.close()
      const b = await buildTestApp(t, { ...env, PROFILER_DEPLOYMENT: 'B', PROFILER_MAX_AGE: '60s', PROFILER_MAX_PROFILES: '3' })
      const fromB = tokenOf(await b.inject({ url: '/from-b' }))
      await flushed(b)
      const both = await storedProcesses(env)
      t.equal(both.rows.length, 2, 'two rows: one per configuration')
      t.equal(new Set(both.named).size, 2)
      const envA = (await profileJson(b, fromA)).panels.env
      t.equal(envA.deployment, 'A', 'A\'s profile shows A\'s environment')
      t.equal(envA.configuration.profilerSecret, '[redacted]', 'a secret-named setting does not say whether it is set')
      t.equal((await profileJson(b, fromB)).panels.env.deployment, 'B')

      // Two more of B's: the count bound (3) takes A's two profiles, and their row with them.
      await b.inject({ url: '/from-b/2' })
      await b.inject({ url: '/from-b/3' })
      await flushed(b)
      await b.profileStore.prune()
      const onlyB = await storedProcesses(env)
      t.equal(onlyB.named.length, 3)
      t.same(onlyB.rows.map(row => row.key), [...new Set(onlyB.named)], 'A\'s row went with its last profile, B\'s stays')
      t.equal((await profileJson(b, fromB)).panels.env.deployment, 'B')

      await b.profileStore.prune(Date.now() + 61_000)
      t.same(await storedProcesses(env), { rows: [], named: [] }, 'every profile expired: no row left')
    })

    t.test('two server processes on one store, one after the other, with the same settings: a row each (writer threads)', async t => {
      const env = await fresh(t)
      const processes: Array<{ tokens: string[], env: Record<string, any> }> = []
      for (let run = 0; run < 2; run++) {
        // Without tap's coverage hooks (half a server start's CPU): the row is written by the engines'
        // writer code the in-process tests above cover; what these add is two processes.
        const server = await startServer(t, { ...env, PROFILER_DEPLOYMENT: 'same' }, [], UNCOVERED)
        const tokens: string[] = []
        for (const path of ['/robots.txt', '/nowhere']) tokens.push((await fetch(`${server.address}${path}`)).headers.get('x-debug-token') ?? '')
        t.equal(await server.stop(), 0, `process ${run + 1} wrote its profiles and ended`)
        processes.push({ tokens, env: {} })
      }
      const reader = await buildTestApp(t, { ...env, PROFILER_DEPLOYMENT: 'reader' })
      for (const recorded of processes) {
        const [first, second] = await Promise.all(recorded.tokens.map(async token => (await profileJson(reader, token)).panels.env))
        t.same(first, second, 'one process: one environment')
        recorded.env = first
      }
      t.not(processes[0]?.env.startedAt, processes[1]?.env.startedAt, 'each process its own start time')
      t.equal(processes[1]?.env.deployment, 'same')
      const { rows, named } = await storedProcesses(env)
      t.equal(rows.length, 2, 'two processes: two rows')
      t.equal(named.length, 4)
      t.same(named.slice(0, 2), [named[0], named[0]], 'the first process\'s profiles name one row')
      t.same(named.slice(2), [named[2], named[2]], 'the second\'s another')
    })

    t.test('the page, its JSON twin, the command line (show --panel env) and MCP (get_profile)', async t => {
      const env = await fresh(t)
      const app = await buildTestApp(t, { ...env, PROFILER_SECRET: SECRET })
      const token = tokenOf(await app.inject({ url: '/robots.txt' }))
      await flushed(app)
      const html = (await app.inject({ url: `/_profiler/${token}?panel=env`, headers: { authorization: basicAuth(SECRET) } })).body
      t.match(html, '<table class="key-values" id="env">')
      t.match(html, `<tr><th>Node.js</th><td>${process.version}</td></tr>`)
      t.match(html, `<tr><th>Build commit</th><td class="mono">${gitHead() ?? 'not built from a checkout'}</td></tr>`)
      t.match(html, '<tr><th class="mono">profilerSecret</th><td class="mono">[redacted]</td></tr>')
      t.match(html, /<tr><th class="mono">trustedHosts<\/th><td class="mono">\[\]<\/td><\/tr>/, 'a value that is not text as JSON')
      t.notMatch(html, SECRET)
      t.notMatch(html, /<script/)
      const page = await profileJson(app, token, '?panel=env')
      t.same(Object.keys(page.panels), ['env'])
      await app.close()

      const shown = await profiler(['show', token, '--panel', 'env', '--json'], env)
      t.same(JSON.parse(shown.stdout), storeOnly(page), 'show --json: the page\'s JSON (but what is kept: the service\'s settings)')
      const text = await profiler(['show', token, '--panel', 'env'], env)
      t.match(text.stdout, /\n\[env\]\n\{\n {2}"version": /)
      const client = await mcpClientInProcess(t, env)
      const detail = await json(client, 'get_profile', { token, panels: ['env'] })
      t.same(detail.panels, page.panels, 'get_profile: the page\'s panel')
    })
  })
}
