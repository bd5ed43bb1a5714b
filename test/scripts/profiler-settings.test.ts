// run-suite: shares a process
// The command line validates the settings it reads (where the store is) and no other: the server's
// own settings, valid or not, in the same environment do not stop it.
import t from 'tap'
import { json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { listProfiles } from '../helpers/profiler.js'
import { profilerBin, usageError } from '../helpers/profiler-cli.js'
import type { RunResult } from '../helpers/run.js'
import { recordedApp } from '../helpers/profile-store.js'
import { UNCOVERED } from '../helpers/server.js'

/** Server settings the command line does not read, each of which the server refuses. */
const SERVER_ONLY: Array<Record<string, string>> = [
  { NODE_ENV: 'production', PROFILER: 'on' },
  { HEADERS_TIMEOUT: '60s' },
  { PORT: 'eighty', TRUST_PROXY: 'maybe', PROFILER_SECRET: 'short', TRUSTED_HOSTS: '(' }
]

/**
 * The built bin, without tap's coverage hooks (a third of the CPU): what these runs add is the child's
 * own environment; the code they run is covered by the other scripts tests (in-process and the bin).
 */
const bin = async (args: string[], env: Record<string, string>): Promise<RunResult> => await profilerBin(args, env, UNCOVERED)

// The two tests side by side (each on a store of its own, mostly waiting on child processes).
t.jobs = 2

t.test('search, export and the MCP server run on the store whatever else the environment holds', { buffered: true }, async t => {
  const { app, env, tokens } = await recordedApp(t)
  const results = await listProfiles(app)
  // The built bin: a real child process with exactly this environment. The six read the store side by
  // side (each mostly starts node): none writes it.
  const runs = await Promise.all(SERVER_ONLY.map(async others => {
    const [search, curl] = await Promise.all([
      bin(['search', '--json'], { ...env, ...others }),
      bin(['export', tokens.poll, '--curl'], { ...env, ...others })
    ])
    return { name: JSON.stringify(others), search, curl }
  }))
  for (const { name, search, curl } of runs) {
    t.same({ code: search.code, stderr: search.stderr }, { code: 0, stderr: '' }, `search with ${name}`)
    t.same(JSON.parse(search.stdout || '{}').results, results, 'the page\'s results')
    t.same({ code: curl.code, stderr: curl.stderr }, { code: 0, stderr: '' }, `export with ${name}`)
  }
  const client = await mcpClientInProcess(t, { ...env, NODE_ENV: 'production', PROFILER: 'on', HEADERS_TIMEOUT: '60s' })
  t.same(await json(client, 'search_profiles', {}), { results }, 'the MCP server too')
})

t.test('the settings it reads are still checked: a usage error naming the variable', { buffered: true }, async t => {
  const { env } = await recordedApp(t)
  await usageError(t, ['search'], { ...env, PROFILER_DATABASE_PATH: '', HEADERS_TIMEOUT: '60s' }, 'Invalid environment: PROFILER_DATABASE_PATH must NOT have fewer than 1 characters (got "")', bin)
  await usageError(t, ['search'], { PROFILER_DATABASE_URL: 'mysql://x', NODE_ENV: 'production' }, 'Invalid environment: PROFILER_DATABASE_URL must be a PostgreSQL URL: postgres://user:password@host:port/database', bin)
  await usageError(t, ['search'], { ...env, PROFILER_DATABASE_URL: 'postgres://db/profiles' }, 'Invalid environment: set either PROFILER_DATABASE_URL (PostgreSQL) or PROFILER_DATABASE_PATH (SQLite), not both')
  await usageError(t, ['search'], { PROFILER_DATABASE_PATH: ':memory:' }, 'Invalid environment: PROFILER_DATABASE_PATH cannot be ":memory:" (the writer thread and the pages would open two different databases): give a file path')
})
