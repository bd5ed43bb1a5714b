// run-suite: shares a process

// Issue 39, "Carry trace ids": a request's W3C traceparent (and tracestate) puts its trace on the
// profile; an invalid one is ignored, never an error. The trace id shows in the profile's summary
// (page, JSON, command line), links to the tracing UI with PROFILER_TRACE_URL, and is a search
// filter everywhere a search is (listing JSON and page, the search redirect, command line, MCP).
// Both engines. The OpenTelemetry side (a profile in the active span's trace without any header)
// is tested with the real SDKs in test/e2e/beside-opentelemetry.test.ts.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { listProfiles } from '../helpers/profiler.js'
import { profiler } from '../helpers/profiler-cli.js'
import { storeEngines } from '../helpers/store-engines.js'

const JSON_ACCEPT = { accept: 'application/json' }
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT = '00f067aa0ba902b7'
const OTHER_TRACE = 'a'.repeat(31) + 'b'

/** Headers that are not a trace: each is ignored and the request answered as without it. */
const INVALID: Array<[string, Record<string, string>]> = [
  ['uppercase hex', { traceparent: `00-${TRACE.toUpperCase()}-${PARENT}-01` }],
  ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` }],
  ['an all-zero parent id', { traceparent: `00-${TRACE}-${'0'.repeat(16)}-01` }],
  ['version ff', { traceparent: `ff-${TRACE}-${PARENT}-01` }],
  ['version 00 with more fields', { traceparent: `00-${TRACE}-${PARENT}-01-extra` }],
  ['too short', { traceparent: `00-${TRACE}-${PARENT}-1` }],
  ['a tracestate alone', { tracestate: 'vendor=value' }],
  ['garbage', { traceparent: '\u00ff\u00fe-not-a-trace' }]
]

/** A POST of the status poll with these headers: its token. */
async function poll (app: FastifyInstance, headers: Record<string, string>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers })
  if (res.statusCode !== 200) throw new Error(`the poll answered ${res.statusCode}: ${res.body.slice(0, 500)}`)
  return String(res.headers['x-debug-token'])
}

const engines = storeEngines(t)
t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const env = { ...await engine.fresh(t), PROFILER_TRACE_URL: 'https://tracing.example/trace/{traceId}?from=profiler' }
    const app = await buildTestApp(t, env)
    const traced = await poll(app, { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'congo=t61rcWkgMzE, rojo=00f067aa0ba902b7' })
    const newerVersion = await poll(app, { traceparent: `01-${OTHER_TRACE}-${PARENT}-00-what-comes-later` })
    const untraced = await poll(app, {})
    const ignored: string[] = []
    for (const [, headers] of INVALID) ignored.push(await poll(app, headers))
    await app.profileStore.flush()

    t.test('a valid traceparent: the trace id and parent span on the profile, its JSON, page and the listing', async t => {
      const profile = (await app.inject({ url: `/_profiler/${traced}`, headers: JSON_ACCEPT })).json()
      t.equal(profile.traceId, TRACE)
      t.equal(profile.traceUrl, `https://tracing.example/trace/${TRACE}?from=profiler`, 'linked to the tracing UI')
      t.same(profile.panels.request.trace, { traceId: TRACE, parentSpanId: PARENT, sampled: true, traceState: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7', source: 'traceparent' })
      const page = (await app.inject({ url: `/_profiler/${traced}` })).body
      // Handlebars writes the link's "=" as &#x3D; (an attribute's value, escaped).
      t.match(page, new RegExp(`<a href="https://tracing\\.example/trace/${TRACE}\\?from(=|&#x3D;)profiler" rel="noopener noreferrer">${TRACE}</a>`), 'the summary links the trace id')
      t.match(page, `under span <span class="mono">${PARENT}</span> (its traceparent header)`)
      t.match(page, `href="/_profiler/search?trace_id=${TRACE}&amp;type=request"`, 'and to its other profiles')
      const later = (await app.inject({ url: `/_profiler/${newerVersion}`, headers: JSON_ACCEPT })).json()
      t.same([later.traceId, later.panels.request.trace.sampled], [OTHER_TRACE, false], 'a later version: its first four fields are read')
      const rows = await listProfiles(app, 'limit=100')
      t.equal(rows.find(row => row.token === traced)?.traceId, TRACE, 'the listing row has it')
    })

    t.test('no traceparent, or an invalid one: no trace, and the request answered as any other', async t => {
      for (const [index, token] of [untraced, ...ignored].entries()) {
        const what = index === 0 ? 'no header' : INVALID[index - 1]?.[0] ?? ''
        const profile = (await app.inject({ url: `/_profiler/${token}`, headers: JSON_ACCEPT })).json()
        t.same([profile.traceId, profile.traceUrl, 'trace' in profile.panels.request], [null, null, false], what)
      }
      t.notMatch((await app.inject({ url: `/_profiler/${untraced}` })).body, 'id="summary-trace"', 'no trace line in the summary')
    })

    t.test('trace_id is a search filter: listing, page, redirect, command line and MCP; a bad one is a 400 naming it', async t => {
      t.same((await listProfiles(app, `trace_id=${TRACE}`)).map(row => row.token), [traced])
      t.same((await listProfiles(app, `trace_id=${TRACE.toUpperCase()}`)).map(row => row.token), [traced], 'as a UI in capitals shows it')
      t.same((await listProfiles(app, `trace_id=${'c'.repeat(32)}`)), [], 'a trace nothing belongs to')
      t.same((await listProfiles(app, `trace_id=${OTHER_TRACE}&method=POST`)).map(row => row.token), [newerVersion], 'combined with other filters')
      const page = (await app.inject({ url: `/_profiler/empty/search/results?trace_id=${TRACE}` })).body
      t.match(page, traced, 'the listing page')
      t.match(page, `id="trace_id" name="trace_id" size="8" value="${TRACE}"`, 'the form keeps the value')
      const redirect = await app.inject({ url: `/_profiler/search?trace_id=${TRACE}` })
      t.equal(redirect.headers.location, `/_profiler/${traced}/search/results?type=request&trace_id=${TRACE}`, 'the search redirect passes it on')
      const bad = await app.inject({ url: '/_profiler/empty/search/results?trace_id=xyz', headers: JSON_ACCEPT })
      t.same([bad.statusCode, bad.json().message], [400, 'Invalid "trace_id" parameter "xyz": expected a W3C trace id: 32 hexadecimal digits'])

      const cli = await profiler(['search', '--json', '--trace-id', TRACE], env)
      t.same(JSON.parse(cli.stdout).results.map((row: { token: string }) => row.token), [traced], 'the command line')
      const shown = await profiler(['show', traced], env)
      t.match(shown.stdout, `Trace     ${TRACE}`, 'the command line shows it')
      const badCli = await profiler(['search', '--trace-id', 'xyz'], env)
      t.same([badCli.code, badCli.stderr], [2, 'profiler: Invalid "--trace-id" parameter "xyz": expected a W3C trace id: 32 hexadecimal digits\n'])
      const client = await mcpClientInProcess(t, env)
      t.same(((await json(client, 'search_profiles', { traceId: TRACE })) as { results: Array<{ token: string }> }).results.map(row => row.token), [traced], 'the MCP tool')
    })
  })
}

t.test('PROFILER_TRACE_URL must be an http(s) URL holding {traceId}: the start stops with the variable named', async t => {
  for (const value of ['http://tracing.example/trace/', 'ftp://x/{traceId}', 'https://{traceId}:99999/']) {
    await t.rejects(buildTestApp(t, { PROFILER_TRACE_URL: value }), /PROFILER_TRACE_URL/, value)
  }
})
