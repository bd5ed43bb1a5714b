// run-suite: shares a process
// Issue 39, "Send profiles out as traces", first Proof line: with PROFILER_OTLP_ENDPOINT set, every
// kept profile reaches a real OTLP/HTTP receiver on loopback as one trace, and the body decodes with
// the decoder generated from the official opentelemetry-proto definitions (test/helpers/otlp-receiver.ts),
// both encodings (protobuf by default, JSON on request), both store engines. The span tree, names,
// attributes, ids and times are checked against the profile as the profiler's own JSON shows it;
// the resource and headers against the OTEL_* variables; redaction against the stored profile.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import type { DecodedRequest, DecodedSpan } from '../helpers/otlp-decode.js'
import { otlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js'
import { storeEngines } from '../helpers/store-engines.js'
import { waitFor } from '../helpers/wait-for.js'

const JSON_ACCEPT = { accept: 'application/json' }
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT = '00f067aa0ba902b7'
const SERVER = 2
const INTERNAL = 1
const CLIENT = 3

/** A test-only route that warns, runs a statement on the advisors' database and fails. */
function failingRoute (app: FastifyInstance): void {
  app.get('/test/otlp-fails', async request => {
    request.log.info('an info line (not exported)')
    request.log.warn('a warning before failing')
    throw new Error('the lookup failed')
  })
}

interface Profile {
  token: string
  method: string
  url: string
  status: number
  time: string
  durationMs: number
  deployment: string
  traceId: string | null
  route: string | null
  panels: {
    timeline: { items: Array<{ kind: string, type: string, name: string, plugin: string, startMs: number, durationMs: number }> }
    db: { engine: string | null, statements: Array<{ sql: string, kind: string, params: unknown[] | Record<string, unknown>, startMs: number, durationMs: number }> }
    logs: { lines: Array<{ level: string, message: string, offsetMs: number }> }
  }
}

async function profileOf (app: FastifyInstance, token: string): Promise<Profile> {
  return (await app.inject({ url: `/_profiler/${token}`, headers: JSON_ACCEPT })).json()
}

/** The spans of one profile among everything the receiver took (its root names the token). */
function traceOf (requests: DecodedRequest[], token: string): { root: DecodedSpan, spans: DecodedSpan[], request: DecodedRequest } {
  for (const request of requests) {
    const root = request.spans.find(span => span.attributes['profiler.token'] === token)
    if (root !== undefined) return { root, spans: request.spans.filter(span => span.traceId === root.traceId), request }
  }
  throw new Error(`no trace of profile ${token}`)
}

const ms = (ns: bigint): number => Number(ns) / 1e6

/** The span tree of one profile against the profile itself. */
function checkTrace (t: Test, requests: DecodedRequest[], profile: Profile, traced: boolean): DecodedSpan {
  const { root, spans } = traceOf(requests, profile.token)
  t.equal(root.kind, SERVER, 'the request is a SERVER span')
  t.match(root.traceId, /^[0-9a-f]{32}$/)
  t.match(root.spanId, /^[0-9a-f]{16}$/)
  if (traced) t.same([root.traceId, root.parentSpanId, root.traceState], [TRACE, PARENT, 'congo=t61rcWkgMzE'], 'in the trace of the traceparent, under its span, with its tracestate')
  else t.same([root.traceId === profile.traceId, root.parentSpanId], [false, ''], 'a trace of its own, a root')
  const url = new URL(profile.url)
  t.equal(root.name, profile.route === null ? profile.method : `${profile.method} ${profile.route}`)
  t.match(root.attributes, {
    'http.request.method': profile.method,
    'url.scheme': url.protocol.slice(0, -1),
    'url.path': url.pathname,
    'http.response.status_code': profile.status,
    'server.address': url.hostname,
    'profiler.token': profile.token,
    'profiler.url': `${url.origin}/_profiler/${profile.token}`
  })
  if (profile.route !== null) t.equal(root.attributes['http.route'], profile.route)
  t.equal(root.startTimeUnixNano, BigInt(Date.parse(profile.time)) * 1_000_000n, 'starts when the profile does (the ms its id holds)')
  t.ok(Math.abs(ms(root.endTimeUnixNano - root.startTimeUnixNano) - profile.durationMs) < 0.001, 'and lasts as long')
  t.equal(new Set(spans.map(span => span.spanId)).size, spans.length, 'span ids are unique')

  const hooks = profile.panels.timeline.items.filter(item => item.kind !== 'statement')
  const hookSpans = spans.filter(span => span.kind === INTERNAL)
  t.ok(hooks.length > 3, 'the hooks were timed')
  t.equal(hookSpans.length, hooks.length, 'a span per hook run and the handler')
  for (const [index, item] of hooks.entries()) {
    const span = hookSpans[index] as DecodedSpan
    const named = item.name === '' ? item.plugin : item.name
    t.equal(span.name, `${item.kind === 'handler' ? 'handler' : item.type} - ${named}`, 'named as @fastify/otel names it')
    t.equal(span.parentSpanId, root.spanId, 'under the request')
    t.equal(span.attributes['fastify.type'], item.kind === 'handler' ? 'request-handler' : item.plugin === 'route' ? 'route-hook' : 'hook')
    t.equal(span.attributes['hook.callback.name'], item.name === '' ? 'anonymous' : item.name)
    t.ok(Math.abs(ms(span.startTimeUnixNano - root.startTimeUnixNano) - item.startMs) < 0.001, `${span.name} starts where the timeline has it`)
    t.ok(Math.abs(ms(span.endTimeUnixNano - span.startTimeUnixNano) - item.durationMs) < 0.001)
  }
  const statementSpans = spans.filter(span => span.kind === CLIENT)
  t.equal(statementSpans.length, profile.panels.db.statements.length, 'a CLIENT span per statement')
  for (const [index, statement] of profile.panels.db.statements.entries()) {
    const span = statementSpans[index] as DecodedSpan
    t.match(span.attributes, { 'db.system.name': profile.panels.db.engine === 'postgres' ? 'postgresql' : 'sqlite', 'db.query.text': statement.sql, 'db.operation.name': statement.kind })
    const params = Object.entries(statement.params).map(([key, value]) => [`db.query.parameter.${key}`, typeof value === 'string' ? value : JSON.stringify(value)])
    t.same(Object.entries(span.attributes).filter(([key]) => key.startsWith('db.query.parameter.')), params, 'its parameters apart from the text')
    t.ok(spans.some(parent => parent.spanId === span.parentSpanId), 'under a span of the trace')
  }
  t.equal(spans.length, 1 + hooks.length + profile.panels.db.statements.length, 'nothing else')
  return root
}

t.jobs = 2
for (const engine of storeEngines(t)) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    for (const protocol of ['http/protobuf', 'http/json']) {
      t.test(`${protocol}: each kept profile is one trace, decoded by the official definitions`, async t => {
        const receiver: OtlpReceiver = await otlpReceiver(t)
        const env = {
          ...await engine.fresh(t),
          PROFILER_OTLP_ENDPOINT: receiver.url,
          ...(protocol === 'http/json' ? { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' } : {}),
          OTEL_SERVICE_NAME: 'contact-centre',
          OTEL_RESOURCE_ATTRIBUTES: 'team=payments,service.namespace=shop%20floor',
          OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cr%3Dt,x-tenant=acme',
          PROFILER_DEPLOYMENT: 'blue-1'
        }
        const app = await buildTestApp(t, env, failingRoute, { profiler: { otlpTuning: { delayMs: 5 } } })
        const traced = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling?password=hunter22&page=2', headers: { 'content-type': 'application/json', traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'congo=t61rcWkgMzE', 'user-agent': 'otlp-test/1' }, payload: '{}' })
        t.equal(traced.statusCode, 200)
        const failed = await app.inject({ url: '/test/otlp-fails' })
        t.equal(failed.statusCode, 500)
        const tokens = [traced, failed].map(res => res.headers['x-debug-token'] as string)
        await app.profileStore.flush()
        await waitFor(() => {
          const accepted = receiver.accepted()
          return tokens.every(token => accepted.some(request => request.spans.some(span => span.attributes['profiler.token'] === token)))
        }, { what: 'both profiles at the receiver' })

        const request = receiver.received[0]
        t.equal(request?.headers['content-type'], protocol === 'http/json' ? 'application/json' : 'application/x-protobuf')
        t.same([request?.headers['x-api-key'], request?.headers['x-tenant']], ['s3cr=t', 'acme'], 'OTEL_EXPORTER_OTLP_HEADERS sent, percent-decoded')
        const requests = receiver.accepted()
        const [tracedProfile, failedProfile] = await Promise.all(tokens.map(async token => await profileOf(app, token)))
        if (tracedProfile === undefined || failedProfile === undefined) throw new Error('profiles missing')
        t.ok(tracedProfile.panels.db.statements.length > 0, 'the poll ran statements')

        const { request: decoded } = traceOf(requests, tracedProfile.token)
        t.match(decoded.resource, {
          'service.name': 'contact-centre',
          'service.version': app.config.version,
          'deployment.environment.name': 'development',
          'service.instance.id': 'blue-1',
          team: 'payments',
          'service.namespace': 'shop floor'
        }, 'the resource: OTEL_SERVICE_NAME over OTEL_RESOURCE_ATTRIBUTES over what the service knows')
        t.equal(decoded.scope.name, 'profiled-api/profiler')

        const root = checkTrace(t, requests, tracedProfile, true)
        t.equal(root.attributes['url.query'], new URL(tracedProfile.url).search.slice(1), 'url.query as stored')
        t.notMatch(String(root.attributes['url.query']), 'hunter22', 'redacted as stored')
        t.equal(root.attributes['user_agent.original'], 'otlp-test/1')
        t.equal(root.status.code, 0, 'a 200 leaves the status unset')
        t.equal(root.events.length, 0)

        const failedRoot = checkTrace(t, requests, failedProfile, false)
        t.same(failedRoot.status, { code: 2, message: 'the lookup failed' }, 'a 5xx: an ERROR status')
        t.equal(failedRoot.attributes['error.type'], '500')
        const exception = failedRoot.events.find(event => event.name === 'exception')
        t.match(exception?.attributes, { 'exception.type': 'Error', 'exception.message': 'the lookup failed' }, 'the error as an exception event')
        const { spans: failedSpans } = traceOf(requests, failedProfile.token)
        const logEvents = failedSpans.flatMap(span => span.events.filter(event => event.name === 'log').map(event => ({ event, span })))
          .sort((a, b) => Number(a.event.timeUnixNano - b.event.timeUnixNano))
        const warned = failedProfile.panels.logs.lines.filter(line => ['warn', 'error', 'fatal'].includes(line.level))
        t.same(logEvents.map(({ event }) => [event.attributes['log.severity'], event.attributes['log.message']]), warned.map(line => [line.level, line.message]), 'log lines at warn and above, as events')
        t.ok(warned.some(line => line.message === 'a warning before failing'))
        for (const [index, { event, span }] of logEvents.entries()) {
          const line = warned[index]
          t.ok(line !== undefined && Math.abs(ms(event.timeUnixNano - failedRoot.startTimeUnixNano) - line.offsetMs) < 0.001, 'at its time')
          t.ok(span.startTimeUnixNano <= event.timeUnixNano && event.timeUnixNano <= span.endTimeUnixNano, 'on the span running then')
        }
        for (const received of receiver.received) t.notMatch(received.body.toString('latin1'), 'hunter22', 'no secret in any body')

        const sent = requests.reduce((sum, one) => sum + one.spans.length, 0)
        const exportState = async (): Promise<Record<string, unknown>> => (await app.inject({ url: '/_profiler/empty/search/results?limit=10', headers: JSON_ACCEPT })).json().store.export
        await waitFor(async () => (await exportState()).exportedSpans === sent, { what: 'the export counts' })
        const listing = { store: { export: await exportState() } }
        t.match(listing.store.export, { url: `${receiver.url}/v1/traces`, protocol, state: 'ok', droppedSpans: 0, queuedSpans: 0 }, 'the listing shows the export')
        t.equal(listing.store.export.exportedSpans, sent, 'every span sent counted')
      })
    }
  })
}
