// run-suite: shares a process
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profilerPage, sameStats, statsJson } from '../helpers/profiler.js'
import { profiler, profilerBin, usageError } from '../helpers/profiler-cli.js'
import { recordedApp } from '../helpers/profile-store.js'

t.test('stats: the page\'s lines for each window, as JSON or a table; a bad window is the page\'s message', async t => {
  const { app, env } = await recordedApp(t)
  const deployment = app.config.profilerDeployment
  for (const [args, query] of [[[], ''], [['--window', '24h'], '?window=24h'], [['--window', '7d'], '?window=7d'], [['--window', '30d'], '?window=30d'], [['--window', '5m'], '?window=5m'], [['--window', '90s'], '?window=90s'],
    [['--deployment', deployment], `?deployment=${deployment}`], [['--deployment', 'elsewhere'], '?deployment=elsewhere'],
    [['--deployment', deployment, '--compare', 'elsewhere', '--window', '24h'], `?deployment=${deployment}&compare=elsewhere&window=24h`]] as const) {
    const before = await statsJson(app, query)
    const res = await profiler(['stats', '--json', ...args], env)
    const after = await statsJson(app, query)
    t.equal(res.code, 0, res.stderr)
    sameStats(t, JSON.parse(res.stdout), before, after)
  }
  const lines = (await statsJson(app)).routes
  t.same(lines.map(line => [line.route, line.method, line.status, line.count]).sort(), [
    // (sorted as text: a null route is empty)
    [null, null, 404, 1],
    [null, null, 405, 1],
    ['/ccenter/getConseillerByCode', 'POST', null, 2],
    ['/monitor/MonitorPooling', 'POST', null, 1]
  ], 'the five recorded requests are in the lines compared')

  const table = await profilerBin(['stats', '--window', '24h'], env)
  t.equal(table.code, 0, table.stderr)
  const rows = table.stdout.trimEnd().split('\n')
  t.match(rows[0], /^Route statistics, last 24h: \d\d-[A-Z][a-z]{2}-\d{4} \d\d:\d\d:00 to \d\d-[A-Z][a-z]{2}-\d{4} \d\d:\d\d:\d\d \(UTC\)$/)
  t.match(rows[1], /^Route\s+Method\s+Status\s+Requests\s+Kept\s+1xx\s+2xx\s+3xx\s+4xx\s+5xx\s+p50\s+p95\s+p99\s+Max$/)
  t.equal(rows.length, 6, 'the window, the titles and four lines')
  t.match(table.stdout, /\n\/ccenter\/getConseillerByCode\s+POST\s+2\s+2\s+0\s+1\s+0\s+1\s+0\s+[\d.]+ m?s\s+[\d.]+ m?s\s+[\d.]+ m?s\s+[\d.]+ m?s\n/, 'a route: its method, count and classes, no status')
  t.match(table.stdout, /\n\(no route matched\)\s+any\s+404 Not Found\s+1\s+1\s+0\s+0\s+0\s+1\s+0\s/, 'unmatched requests: one line per status')
  t.equal(new Set(rows.slice(1).map(row => row.length)).size, 1, 'numbers aligned right: every line ends at the same column')
  t.notOk(table.stdout.includes('\u001b'), 'no colour when stdout is not a terminal')

  const compared = await profilerBin(['stats', '--deployment', deployment, '--compare', 'elsewhere'], env)
  t.equal(compared.code, 0, compared.stderr)
  t.match(compared.stdout, `\nA = deployment ${deployment}, B = deployment elsewhere; slower: beyond both histograms' error (4.4% each way)\n`)
  t.match(compared.stdout, /\nRoute\s+Method\s+Status\s+A requests\s+B requests\s+p50 A\s+p50 B\s+p50 B-A\s+p95 A\s+p95 B\s+p95 B-A\s+p99 A\s+p99 B\s+p99 B-A\s+Slower\n/)
  t.match(compared.stdout, /\n\/ccenter\/getConseillerByCode\s+POST\s+2\s+[\d.]+ m?s\s+[\d.]+ m?s\s+[\d.]+ m?s\s*\n/, 'a line only A has: its figures, none of B\'s')
  await usageError(t, ['stats', '--compare', 'B'], env, 'Invalid "--compare" parameter "B": expected a "--deployment" to compare it with')

  const page = await profilerPage(app, '/stats?window=31d')
  t.equal(page.statusCode, 400)
  t.equal(JSON.parse(page.body).message, 'Invalid "window" parameter "31d": expected 5m, 15m, 30m, 1h, 24h, 7d, 30d or another duration from 1s to 30d (90s, 10m, 2h)')
  await usageError(t, ['stats', '--window', '31d'], env, 'Invalid "--window" parameter "31d": expected 5m, 15m, 30m, 1h, 24h, 7d, 30d or another duration from 1s to 30d (90s, 10m, 2h)')
  await usageError(t, ['stats', '--window', 'constructor'], env, 'Invalid "--window" parameter "constructor": expected 5m, 15m, 30m, 1h, 24h, 7d, 30d or another duration from 1s to 30d (90s, 10m, 2h)')
})

t.test('stats on a store with no request yet: the window, and the page\'s sentence', async t => {
  const app = await buildTestApp(t)
  const env = { PROFILER_DATABASE_PATH: app.config.profilerDatabasePath }
  const res = await profiler(['stats'], env)
  t.equal(res.code, 0, res.stderr)
  t.match(res.stdout, /^Route statistics, last 1h: .* \(UTC\)\nNo request was recorded in this window\.\n$/)
  const json = await profiler(['stats', '--json'], env)
  t.same(JSON.parse(json.stdout).routes, [])
  t.same((await statsJson(app)).routes, [])
})
