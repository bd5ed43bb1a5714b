// run-suite: shares a process
// The command line and the MCP server on the PostgreSQL profile store (PROFILER_DATABASE_URL), read
// while the app that wrote it runs: the same answers as the pages, nothing created or migrated.
import t from 'tap'
import { newestVersion } from '../../lib/migration-files.js'
import { freePort } from '../helpers/throwaway-cluster.js'
import { profilerPostgresMigrationsDir } from '../../paths.js'
import { json, mcpClient } from '../helpers/mcp-client.js'
import { needsPostgres, queryOn, startPostgres, type PostgresCluster } from '../helpers/postgres.js'
import { listProfiles, profileJson, profilerPage, sameStats, statsJson, storeOnly } from '../helpers/profiler.js'
import { profiler, profilerBin, usageError } from '../helpers/profiler-cli.js'
import { recordedApp, SECRET_BEARER } from '../helpers/profile-store.js'

/** The cluster's password (trust authentication accepts any): it must never be shown. */
const PASSWORD = 'test-password'

if (needsPostgres(t)) {
  let cluster: PostgresCluster
  t.before(async () => { cluster = await startPostgres(t) })

  t.test('search, show, stats, export and an MCP tool read the PostgreSQL store the running app writes', async t => {
    const { app, env, tokens } = await recordedApp(t, { PROFILER_DATABASE_URL: await cluster.createDatabase('store') })
    t.ok(env.PROFILER_DATABASE_URL?.includes(PASSWORD), 'the command line gets the URL with its password')

    for (const [args, query] of [[[], ''], [['--status', '404'], 'status_code=404'], [['--url', 'getConseiller', '--ip', '127.0'], 'url=getConseiller&ip=127.0']] as const) {
      const res = await profiler(['search', '--json', ...args], env)
      t.equal(res.code, 0, res.stderr)
      t.same(JSON.parse(res.stdout).results, await listProfiles(app, query), `search ${args.join(' ')}: the page's results`)
    }
    // The built bin once (a real node start on PostgreSQL); the rest runs in-process.
    const table = await profilerBin(['search', '--token', tokens.robots], env)
    t.match(table.stdout, new RegExp(`\\n${tokens.robots}\\s.*\\s404\\s+GET\\s.*10\\.0\\.0\\.7\\s+http://localhost/robots\\.txt\\n$`))

    const latest = await profiler(['show', 'latest', '--json'], env)
    t.equal(latest.code, 0, latest.stderr)
    t.same(JSON.parse(latest.stdout), storeOnly(await profileJson(app, tokens.poll)), 'show latest: the page\'s JSON')
    const shown = await profiler(['show', tokens.wrongMethod], env)
    t.match(shown.stdout, /^Token {5}[0-9a-f]{6}\nStatus {4}405 Method Not Allowed\n/)
    await usageError(t, ['show', 'abcdef'], env, 'Token "abcdef" not found.')

    const before = await statsJson(app, '?window=24h')
    const stats = await profiler(['stats', '--window', '24h', '--json'], env)
    t.equal(stats.code, 0, stats.stderr)
    sameStats(t, JSON.parse(stats.stdout), before, await statsJson(app, '?window=24h'))
    t.equal(before.routes.length, 4, 'the recorded requests are in the lines compared')

    const curl = await profiler(['export', tokens.found, '--curl'], env)
    t.equal(curl.code, 0, curl.stderr)
    t.equal(curl.stdout, (await profilerPage(app, `/${tokens.found}/curl`)).body, 'export --curl: the /curl page')
    t.notOk(curl.stdout.includes(SECRET_BEARER.slice(7)), 'the bearer token stays redacted')

    const client = await mcpClient(t, env)
    const answer = await json(client, 'get_profile', { token: tokens.found, panels: ['request', 'performance'] })
    const page = await profileJson(app, tokens.found)
    t.same(Object.keys(answer.panels), ['request', 'performance'])
    t.same(answer.panels.request, page.panels.request, 'get_profile: the page\'s request panel')
    t.equal(answer.status, 200)
    const found = await json(client, 'search_profiles', { status: 405 })
    t.same(found.results.map((row: { token: string }) => row.token), [tokens.wrongMethod])
  })

  t.test('a database never migrated is exit code 1 with one line, and stays untouched', async t => {
    const url = await cluster.createDatabase('empty')
    const res = await profiler(['search'], { PROFILER_DATABASE_URL: url })
    t.equal(res.code, 1)
    t.equal(res.stderr, `profiler: The profile store ${url.replace(PASSWORD, '***')} is at version 0, this command reads version ${newestVersion(profilerPostgresMigrationsDir)}: start the service once to migrate it\n`)
    t.equal(res.stdout, '')
    t.same(await queryOn(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"), [], 'nothing created or migrated')
  })

  t.test('a read the store refuses is the store\'s failure, as on SQLite: exit code 1, one line that says so', async t => {
    const { env } = await recordedApp(t, { PROFILER_DATABASE_URL: await cluster.createDatabase('refusing') })
    const url = env.PROFILER_DATABASE_URL ?? ''
    // A role that may read the schema's version but not the profiles: the open succeeds, the search is refused (42501).
    await queryOn(url, 'CREATE ROLE version_only LOGIN')
    await queryOn(url, 'GRANT SELECT ON profiler_schema_migrations TO version_only')
    const refused = url.replace('//postgres:', '//version_only:')
    const res = await profiler(['search'], { PROFILER_DATABASE_URL: refused })
    t.equal(res.code, 1)
    t.match(res.stderr, /^profiler: The profile store failed: permission denied for table profiles\n$/)
    t.notOk(res.stderr.includes(PASSWORD), 'no password')
  })

  t.test('an unreachable server is exit code 1 with one line that never shows the password', async t => {
    const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${await freePort()}/store`
    for (const args of [['search'], ['show', 'latest'], ['stats']]) {
      const res = await profiler(args, { PROFILER_DATABASE_URL: url })
      t.equal(res.code, 1, `${args[0]}: exit 1`)
      t.match(res.stderr, /^profiler: Cannot reach the profile store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/store: .*ECONNREFUSED.*\n$/)
      t.notOk(res.stderr.includes(PASSWORD) || res.stdout.includes(PASSWORD), 'no password')
    }
  })
}
