// The service beside the ecosystem's tracing (issue 39): started with each usual instrumentation
// preloaded, it answers as it does without one (status, headers, body, compression of answers and
// of routing misses, X-Debug-Token, Server-Timing, every panel), with the profiler on and off.
// Real child processes (dist/server.js), real HTTP on loopback; nothing is exported anywhere (an
// in-memory span exporter, OTEL_*_EXPORTER=none, a Sentry transport that drops every envelope).
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { packageRoot } from '../../paths.js'
import { UNCOVERED, startServer, type RunningServer } from '../helpers/server.js'
import { waitFor } from '../helpers/wait-for.js'

// Ten servers started in all (two without any set-up, shared; two for each set-up). A start with a
// preload is seconds of one core, much of it spent waiting on the profiler's threads: two set-ups at
// a time, each starting its two servers at once, keep both cores busy (about half the file's time).
t.setTimeout(300_000)
t.jobs = 2

const telemetry = (file: string): string => `--import=${join(packageRoot, 'dist', 'test', 'helpers', 'telemetry', file)}`

/** What OpenTelemetry's SDK reads: no exporter, no resource detector that would ask a cloud's metadata address. */
const OTEL_OFFLINE = {
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_NODE_RESOURCE_DETECTORS: 'none'
}

/**
 * `covered`: its server with the profiler on runs under tap's coverage hooks, so that the lines only
 * a traced process runs (collect/active-span.ts: @fastify/otel's span, the active one) are counted.
 * The other traced servers, and the plain ones, start without them (UNCOVERED): other files' servers run the same code.
 */
interface SetUp { name: string, preloads: string[], env?: Record<string, string>, covered?: boolean }

const SET_UPS: SetUp[] = [
  { name: '@fastify/otel with registerOnInitialization and a NodeTracerProvider', preloads: [telemetry('fastify-otel-on-initialization.js')], covered: true },
  { name: '@fastify/otel registered as a plugin', preloads: [telemetry('fastify-otel-plugin.js')], covered: true },
  // Its README's way: --require of the register module (CommonJS), which also hooks ES modules.
  // Tracing, its spans exported over OTLP to a closed loopback port (discard: nothing listens).
  { name: 'the @opentelemetry/auto-instrumentations-node register preload', preloads: ['--require=@opentelemetry/auto-instrumentations-node/register'], env: { ...OTEL_OFFLINE, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } },
  { name: '@sentry/node 10 with tracing, its ESM instrument file', preloads: [telemetry('sentry-instrument.js')] }
]

const BROWSER = { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' }
const JSON_BODY = { 'content-type': 'application/json' }

/** The requests compared: the two routes, an error page of a route, routing misses (404, 405, 301), a large answer. */
const REQUESTS: Array<{ method: string, path: string, headers?: Record<string, string>, body?: string }> = [
  { method: 'POST', path: '/monitor/MonitorPooling' },
  { method: 'POST', path: '/ccenter/getConseillerByCode', headers: JSON_BODY, body: '{"code":"ADV1001"}' },
  { method: 'POST', path: '/ccenter/getConseillerByCode', headers: { ...JSON_BODY, ...BROWSER }, body: '{"code":"NOPE"}' },
  { method: 'GET', path: '/nowhere', headers: { accept: 'text/html', 'accept-encoding': 'gzip' } },
  { method: 'GET', path: '/nowhere', headers: BROWSER },
  { method: 'GET', path: '/nowhere?x=1' },
  { method: 'DELETE', path: '/monitor/MonitorPooling', headers: BROWSER },
  { method: 'GET', path: '/monitor/MonitorPooling/', headers: BROWSER },
  { method: 'GET', path: '/openapi.json', headers: { 'accept-encoding': 'br' } }
]

const COMPARED_HEADERS = ['content-type', 'content-encoding', 'vary', 'allow', 'location', 'content-security-policy']

interface Answer { status: number, headers: Record<string, string | undefined>, body: string, token: string | null }

/** An answer with what differs between two runs (address, token, durations) put in words. */
async function answer (server: RunningServer, request: typeof REQUESTS[number]): Promise<Answer> {
  const res = await fetch(server.address + request.path, { method: request.method, headers: request.headers ?? {}, body: request.body ?? null, redirect: 'manual' })
  const token = res.headers.get('x-debug-token')
  const blank = (text: string): string => {
    const words = text.replaceAll(server.address, 'ADDRESS')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'TIME')
      .replace(/"uptimeSeconds":\d+/g, '"uptimeSeconds":N')
    return token === null ? words : words.replaceAll(token, 'TOKEN')
  }
  // fetch decodes br and gzip: a body that was not what its Content-Encoding says would fail here.
  const body = blank(await res.text())
  const headers: Record<string, string | undefined> = {}
  for (const name of COMPARED_HEADERS) headers[name] = res.headers.get(name) === null ? undefined : blank(String(res.headers.get(name)))
  headers['x-debug-token-link'] = res.headers.get('x-debug-token-link') === null ? undefined : blank(String(res.headers.get('x-debug-token-link')))
  // Server-Timing's entries by name and description (their durations vary from run to run).
  headers['server-timing'] = res.headers.get('server-timing')?.replace(/;dur=[\d.]+/g, ';dur=N')
  return { status: res.status, headers, body, token }
}

/**
 * Every panel of a profile: its JSON (the panels it has) and, with `pages`, each panel's page as a
 * browser gets it (only the traced server's pages are fetched: the plain server's are 200 in every
 * other panel test, and each page fetch is a render on a machine the suite keeps busy).
 */
async function panels (server: RunningServer, token: string, pages: boolean): Promise<{ names: string[], pages: number[], status: number, route: unknown }> {
  const url = `${server.address}/_profiler/${token}`
  // Profiles are written in the background (the writer thread): wait until this one can be read.
  await waitFor(async () => (await fetch(url, { headers: { accept: 'application/json' } })).status === 200, { what: `profile ${token}` })
  const res = await fetch(url, { headers: { accept: 'application/json' } })
  const profile = await res.json() as { status: number, panels: Record<string, { route?: unknown }> }
  const names = Object.keys(profile.panels).sort()
  // The pages side by side: each is a render of its own, read-only.
  const statuses = await Promise.all(names.map(async name => {
    if (!pages) return 200
    const page = await fetch(`${server.address}/_profiler/${token}?panel=${name}`, { headers: { 'accept-encoding': 'gzip' } })
    await page.arrayBuffer()
    return page.status
  }))
  return { names, pages: statuses, status: profile.status, route: profile.panels.router?.route ?? null }
}

/** A profile's trace, once it can be read. */
async function traceOfProfile (server: RunningServer, headers: Record<string, string>): Promise<{ traceId: string | null, trace?: { traceId: string, parentSpanId: string, source: string } }> {
  const res = await fetch(`${server.address}/monitor/MonitorPooling`, { method: 'POST', headers })
  const url = `${server.address}/_profiler/${res.headers.get('x-debug-token') ?? ''}`
  await waitFor(async () => (await fetch(url, { headers: { accept: 'application/json' } })).status === 200, { what: `profile at ${url}` })
  const profile = await (await fetch(url, { headers: { accept: 'application/json' } })).json() as { traceId: string | null, panels: { request: { trace?: { traceId: string, parentSpanId: string, source: string } } } }
  return { traceId: profile.traceId, trace: profile.panels.request.trace }
}

/**
 * Issue 39: with OpenTelemetry active, a profile is in the trace of the span its request ran in,
 * without any header; with a traceparent, that trace is the caller's (the SDK continues it), and the
 * profile hangs under the SDK's span, not the caller's.
 */
async function sameTrace (t: Test, traced: RunningServer, sentry: boolean): Promise<void> {
  const own = await traceOfProfile(traced, {})
  t.match(own, { traceId: /^[0-9a-f]{32}$/, trace: { source: 'opentelemetry', parentSpanId: /^[0-9a-f]{16}$/ } }, 'no header: the profile is in the active span\'s trace')
  // Sentry continues a caller's trace from its own sentry-trace header; OpenTelemetry from traceparent.
  const caller: Record<string, string> = sentry ? { 'sentry-trace': '4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1' } : { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }
  const continued = await traceOfProfile(traced, caller)
  t.match(continued, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', trace: { source: 'opentelemetry' } }, 'the caller\'s header: its trace, as the SDK continues it')
  t.not(continued.trace?.parentSpanId, '00f067aa0ba902b7', 'under the span the SDK made for the request, not the caller\'s')
}

/** The same requests to a server without the set-up and to one with it: the same answers, the same panels. */
async function compare (t: Test, plain: RunningServer, setUp: SetUp, profiler: 'on' | 'off'): Promise<void> {
  const traced = await startServer(t, { PROFILER: profiler, ...setUp.env }, setUp.preloads, setUp.covered === true && profiler === 'on' ? {} : UNCOVERED)
  const profiled: string[] = []
  const pairs: Array<{ what: string, traced: string, plain: string }> = []
  for (const request of REQUESTS) {
    const what = `${request.method} ${request.path} (${JSON.stringify(request.headers ?? {})})`
    // The two servers are independent: each request to both at once.
    const [expected, actual] = await Promise.all([answer(plain, request), answer(traced, request)])
    t.same({ ...actual, token: actual.token !== null }, { ...expected, token: expected.token !== null }, what)
    if (actual.token !== null) profiled.push(actual.token)
    if (actual.token !== null && expected.token !== null) pairs.push({ what, traced: actual.token, plain: expected.token })
  }
  // The panels once every request was answered: the writer stores the profiles meanwhile, and the
  // wait for the first one is all the waiting (polling for each in turn cost CPU on both sides).
  for (const pair of pairs) {
    const [tracedPanels, plainPanels] = await Promise.all([panels(traced, pair.traced, true), panels(plain, pair.plain, false)])
    t.same(tracedPanels, plainPanels, `${pair.what}: its panels, each page 200`)
  }
  // The API document is not profiled; every other answer is, with the profiler on.
  t.equal(profiled.length, profiler === 'on' ? REQUESTS.length - 1 : 0, 'X-Debug-Token on every profiled answer')
  if (profiler === 'on') await sameTrace(t, traced, setUp.name.includes('sentry'))
  t.equal(await traced.stop(), 0, 'exits 0 after a graceful close')
  t.notMatch(traced.log(), /Cannot start|"level":[56]0/, 'no start failure, no error logged')
}

// The servers without any set-up, one a profiler mode, answer every set-up's test: both started at
// once, with the first set-ups' servers. Without tap's coverage hooks: dist/server.js with the
// profiler on and off is covered by the other files' servers (server, edge, crash-and-shutdown).
const plain = {
  on: startServer(t, { PROFILER: 'on', ...OTEL_OFFLINE }, [], UNCOVERED),
  off: startServer(t, { PROFILER: 'off', ...OTEL_OFFLINE }, [], UNCOVERED)
}
// A start that fails is said by the test that awaits it; no unhandled rejection before then.
for (const started of Object.values(plain)) started.catch(() => {})

for (const setUp of SET_UPS) {
  t.test(`beside ${setUp.name}: started, it answers as without it, the profiler on and off`, { buffered: true }, async t => {
    // The two modes' servers are independent: started and compared side by side.
    t.jobs = 2
    for (const profiler of ['on', 'off'] as const) {
      t.test(`PROFILER=${profiler}`, { buffered: true }, async t => { await compare(t, await plain[profiler], setUp, profiler) })
    }
  })
}
