// run-suite: shares a process
import t from 'tap'
import { printable, printableJson, resultsTable, statsTable } from '../../plugins/profiler/cli/format.js'

const row = (status: number, url = 'http://localhost/x') => ({ token: 'abc123', ip: '127.0.0.1', method: 'GET', url, status, time: '2026-11-22T10:30:00.000Z', durationMs: 1.25, deployment: 'A', queries: 0, queryMs: 0, warnings: 0, errors: 0, traceId: null })

t.test('the status is coloured as on the page when asked (a terminal), and columns stay aligned', async t => {
  const coloured = resultsTable([row(500), row(301), row(200)], true).split('\n')
  t.ok(coloured[1]?.includes('  \u001b[31m500\u001b[39m     GET  '), 'an error is red, padded as without colour')
  t.ok(coloured[2]?.includes('  \u001b[33m301\u001b[39m  '), 'a redirect is yellow')
  t.ok(coloured[3]?.includes('  \u001b[32m200\u001b[39m  '), 'a success is green')
  const plain = resultsTable([row(500)], false)
  t.equal(plain, 'Token   Time                  Status  Method  Duration  IP         URL\nabc123  22-Nov-2026 10:30:00  500     GET     1.3 ms    127.0.0.1  http://localhost/x\n')
})

t.test('stored text cannot drive the terminal: control characters are shown as escapes', async t => {
  t.equal(printable('a\u001b[2Jb\u009bc\nd'), 'a\\u001b[2Jb\\u009bc\\u000ad')
  t.equal(printableJson({ body: 'x\u009by\u001b' }), '{\n  "body": "x\\u009by\\u001b"\n}')
  t.notOk(resultsTable([row(200, 'http://localhost/\u001b[31m')], false).includes('\u001b'))
})

t.test('statistics: numbers aligned right, the status of unmatched requests coloured when asked, routes printable', async t => {
  const line = (route: string | null, status: number | null, count: number) => ({
    route,
    method: route === null ? null : 'POST',
    status,
    count,
    kept: Math.floor(count / 100),
    statusClasses: { '1xx': 0, '2xx': 0, '3xx': 0, '4xx': count, '5xx': 0 },
    meanMs: 1,
    p50Ms: 1,
    p95Ms: 2,
    p99Ms: 3,
    maxMs: 1500,
    listing: '',
    trend: { counts: [], p95Ms: [] }
  })
  const stats = {
    window: '1h',
    deployment: null,
    bound: null,
    givenUp: null,
    from: '2026-11-22T09:30:00.000Z',
    to: '2026-11-22T10:30:12.345Z',
    routes: [line('/a\u001b[2J', null, 1200), line(null, 404, 7)],
    trendSpan: '1m' as const,
    trendFrom: '2026-11-22T09:30:00.000Z',
    compare: null,
    comparison: null,
    missing: { total: 0, windows: [] }
  }
  const plain = statsTable(stats, false).split('\n')
  t.equal(plain[0], 'Route statistics, last 1h: 22-Nov-2026 09:30:00 to 22-Nov-2026 10:30:12 (UTC)')
  t.equal(plain[1], 'Route               Method  Status         Requests  Kept  1xx  2xx  3xx   4xx  5xx      p50      p95      p99     Max')
  t.equal(plain[2], '/a\\u001b[2J         POST                       1200    12    0    0    0  1200    0  1.00 ms  2.00 ms  3.00 ms  1.50 s')
  t.equal(plain[3], '(no route matched)  any     404 Not Found         7     0    0    0    0     7    0  1.00 ms  2.00 ms  3.00 ms  1.50 s')
  const coloured = statsTable(stats, true).split('\n')
  t.equal(coloured[3], plain[3]?.replace('404 Not Found', '\u001b[31m404 Not Found\u001b[39m'), 'red, padded as without colour')
  t.equal(statsTable({ ...stats, routes: [] }, false), `${plain[0]}\nNo request was recorded in this window.\n`)
  t.equal(statsTable({ ...stats, window: '30d', bound: { statsMaxAge: '7d', from: '2026-11-15T10:00:00.000Z' } }, false).split('\n')[1],
    'Statistics are kept 7d (PROFILER_STATS_MAX_AGE): none from before 15-Nov-2026 10:00:00 (UTC).', 'a bound shorter than the window is said')
  t.equal(statsTable({ ...stats, window: '7d', givenUp: { from: '2026-11-21T10:00:00.000Z' } }, false).split('\n')[1],
    'Oldest hours given up to PROFILER_MAX_BYTES: none from before 21-Nov-2026 10:00:00 (UTC).', 'hours given up to the byte bound inside the window are said')
  t.equal(statsTable({ ...stats, missing: { total: 5, windows: [{ from: '2026-11-22T10:01:00.000Z', to: '2026-11-22T10:02:00.000Z', count: 5 }] } }, false).split('\n')[1],
    '5 request(s) could not be counted and are missing from these figures: 22-Nov-2026 10:01:00 (5).', 'requests not counted are said, by minute')
  t.equal(statsTable({ ...stats, deployment: 'A\u001b[2J' }, false).split('\n')[0], 'Route statistics, last 1h, deployment A\\u001b[2J: 22-Nov-2026 09:30:00 to 22-Nov-2026 10:30:12 (UTC)', 'the deployment named, printable')
})
