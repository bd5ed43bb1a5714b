import t from 'tap'
import { printable, printableJson, resultsTable } from '../../scripts/profiler/format.js'

const row = (status: number, url = 'http://localhost/x') => ({ token: 'abc123', ip: '127.0.0.1', method: 'GET', url, status, time: '2026-11-22T10:30:00.000Z', durationMs: 1.25, deployment: 'A' })

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
