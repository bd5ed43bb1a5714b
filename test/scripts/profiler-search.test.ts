// run-suite: shares a process
import t from 'tap'
import { listProfiles } from '../helpers/profiler.js'
import { profiler, profilerBin, usageError } from '../helpers/profiler-cli.js'
import { recordedApp } from '../helpers/profile-store.js'

t.test('search: the page\'s results for the same filters, as a table or JSON', async t => {
  const { app, env, tokens } = await recordedApp(t)
  // The built bin, once: a real node start, its exit code and bytes; the rest runs in-process.
  const table = await profilerBin(['search'], env)
  t.equal(table.code, 0, table.stderr)
  const lines = table.stdout.trimEnd().split('\n')
  t.match(lines[0], /^Token\s+Time\s+Status\s+Method\s+Duration\s+IP\s+URL$/)
  t.equal(lines.length, 6, 'a title row and the five profiles')
  t.match(lines[1], new RegExp(`^${tokens.poll}\\s+\\d\\d-[A-Z][a-z]{2}-\\d{4} \\d\\d:\\d\\d:\\d\\d\\s+200\\s+POST\\s+[\\d.]+ ms\\s+127\\.0\\.0\\.1\\s+http://localhost/monitor/MonitorPooling$`), 'newest first')
  t.notOk(table.stdout.includes('\u001b'), 'no colour when stdout is not a terminal')

  const cases: Array<{ args: string[], query: string }> = [
    { args: [], query: '' },
    { args: ['--status', '404'], query: 'status_code=404' },
    { args: ['--method', 'get', '--limit', '1'], query: 'method=get&limit=1' },
    { args: ['--url', '!/ccenter/'], query: 'url=!/ccenter/' },
    { args: ['--url', 'getConseiller', '--ip', '127.0'], query: 'url=getConseiller&ip=127.0' },
    { args: ['--ip', '10.0.0'], query: 'ip=10.0.0' },
    { args: ['--from', '2000-01-01', '--until', '2000-01-02'], query: 'start=2000-01-01&end=2000-01-02' },
    { args: ['--deployment', app.config.profilerDeployment], query: `deployment=${encodeURIComponent(app.config.profilerDeployment)}` },
    { args: ['--deployment', 'no-such-deployment'], query: 'deployment=no-such-deployment' }
  ]
  for (const { args, query } of cases) {
    const res = await profiler(['search', '--json', ...args], env)
    t.equal(res.code, 0, res.stderr)
    const results = await listProfiles(app, query)
    t.same(JSON.parse(res.stdout), { results }, `search ${args.join(' ')} = the page's ?${query}`)
    if (query === 'ip=10.0.0') t.same(results.map(result => result.token), [tokens.robots], 'the filter did filter')
    if (query === 'deployment=no-such-deployment') t.same(results, [], 'another deployment\'s profiles only')
    if (args[0] === '--deployment' && query !== 'deployment=no-such-deployment') t.equal(results.length, 5, 'this deployment recorded them all')
  }

  const byToken = await profiler(['search', '--json', '--token', tokens.notFound], env)
  t.same(JSON.parse(byToken.stdout).results.map((r: { token: string }) => r.token), [tokens.notFound], 'a token: that profile alone, as the page redirects to it')
  const none = await profiler(['search', '--status', '599'], env)
  t.equal(none.stdout, 'The query returned no result.\n')
})

t.test('search: bad filters are usage errors with the page\'s messages, naming the option', async t => {
  const { env } = await recordedApp(t)
  await usageError(t, ['search', '--status', 'abc'], env, 'Invalid "--status" parameter "abc": expected an HTTP status code from 100 to 599')
  await usageError(t, ['search', '--limit', '0'], env, 'Invalid "--limit" parameter "0": expected a whole number from 1 to 100')
  await usageError(t, ['search', '--method', 'GET!'], env, 'Invalid "--method" parameter "GET!": expected an HTTP method such as GET or POST')
  await usageError(t, ['search', '--from', '2026-02-30'], env, 'Invalid "--from" parameter "2026-02-30": expected a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM])')
  await usageError(t, ['search', '--from', '2026-11-23', '--until', '2026-11-22'], env, 'Invalid time range: "--from" (2026-11-23) is after "--until" (2026-11-22)')
  await usageError(t, ['search', '--token', 'ffffff'], env, 'Token "ffffff" not found.')
})
