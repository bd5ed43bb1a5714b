// run-suite: shares a process
// The logs panel's record (issue 38) makes Fastify's own lines' stored form straight from the
// capture when it can: it must store what the panel as collected (shown, redacted) stored through
// toStoredLine, line for line, under any redaction rules, for any line, secrets included.
import fc from 'fast-check'
import t from 'tap'
import { Redactor, type RedactionRules } from '../../lib/redact.js'
import type { RequestCapture } from '../../plugins/profiler/capture/capture.js'
import { logsPanel } from '../../plugins/profiler/panels/logs/index.js'
import { FASTIFY_COMPLETED, FASTIFY_INCOMING, FASTIFY_MESSAGES, type RequestLogs } from '../../plugins/profiler/panels/logs/probe.js'
import { LINES_FORM, toStoredLine } from '../../plugins/profiler/panels/logs/stored-lines.js'
import type { CollectContext } from '../../plugins/profiler/panels/panel.js'

/** Rules that leave Fastify's lines alone, and rules that touch their keys, their message or their values. */
const RULES: RedactionRules[] = [{}, { fields: ['url'] }, { fields: ['res'] }, { values: ['request'] }, { values: ['GET', '4111'] }, { values: ['60'] }]

const line = fc.oneof(
  fc.tuple(fc.constantFrom('/a', '/s?password=hunter22', '/t?x=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln', '/GET/request', 4111111111111111 as unknown as string), fc.constantFrom(30, 35, 20, 40))
    .map(([url, level]) => [10, level, FASTIFY_MESSAGES[FASTIFY_INCOMING], FASTIFY_INCOMING, url]),
  fc.tuple(fc.constantFrom(0.25, 60, 4111111111111111, Number.NaN), fc.constantFrom(30, 50))
    .map(([time, level]) => [12, level, FASTIFY_MESSAGES[FASTIFY_COMPLETED], FASTIFY_COMPLETED, time]),
  // Not unpacked: the message slot still empty.
  fc.constant([11, 30, undefined, FASTIFY_INCOMING, '/a']),
  fc.constant([13, 30, 'user %s signed in', ['ann'], { password: 'x' }])
)

t.test('record stores what the collected lines stored through toStoredLine, under each rule set', async t => {
  let lines = 0
  fc.assert(fc.property(fc.array(line, { maxLength: 6 }), fc.integer({ min: 0, max: RULES.length - 1 }), fc.constantFrom('GET', 'POST'), fc.constantFrom(200, 404, 4111), (captured, r, method, statusCode) => {
    const logs: RequestLogs = { drawn: true, fromLevel: 30, lines: captured.flat(), bytes: 0, omitted: 1, warnings: 0, errors: 0 }
    const capture = { method, statusCode, originMs: 10.5 } as unknown as RequestCapture
    const context = { capture, redactor: new Redactor(RULES[r]), url: '', responseBody: undefined, collected: () => undefined } as CollectContext
    const shown = logsPanel.collect(context, logs) as { lines: Array<Parameters<typeof toStoredLine>[0]>, omitted: number, sampledOut: boolean }
    const expected = { v: LINES_FORM, lines: shown.lines.map((shownLine, at) => toStoredLine(shownLine, logs.lines[at * 5 + 3], { method, status: statusCode })), omitted: shown.omitted, sampledOut: shown.sampledOut }
    lines += captured.length
    return JSON.stringify(logsPanel.record?.(context, logs)) === JSON.stringify(expected)
  }), { numRuns: 300, seed: 3863 })
  t.ok(lines > 500, `${lines} generated lines stored alike`)
})
