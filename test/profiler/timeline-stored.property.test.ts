// run-suite: shares a process
// The timeline is stored as its hook runs and built when a profile is read (panels/timeline/
// collect.ts). For generated requests (hooks that run, reply early, throw or wait; statements; log
// lines of every level with whitespace, markup and long messages; handler errors; requests the
// sample left out that a rule kept), through app.inject and the real store of each engine, what the
// profile's JSON shows of the timeline deep-equals what the code before showed: the timeline
// collected in the writer (test/helpers/timeline-before.ts, from the very capture the writer was
// handed, with the db, logs and performance panels as read back) and read back from its items. The
// writer stores the runs naming their sites in the process row (v 3); the form before it (v 2: the
// runs with their sites), recorded from the same capture, reads back the same too. The logs panel,
// stored with Fastify's own lines compact (v 2: panels/logs/stored-lines.ts), reads back equal to
// what its collector gives for the same capture (what the code before stored whole). The request,
// performance, exception, router and db panels, stored as records in one array since 29 November
// 2026 (panels/stored-panels.ts), read back key for key as each panel's collector gives them for
// the same capture stored in the form before (an object by panel name, each without the row's
// values) and read back: generated query strings, headers and credentials too.
import { deserialize, serialize } from 'node:v8'
import type { FastifyInstance } from 'fastify'
import fc from 'fast-check'
import t from 'tap'
import type { RequestCapture } from '../../plugins/profiler/capture/capture.js'
import type { WriterRequest } from '../../plugins/profiler/runtime/writer-protocol.js'
import type { CollectContext } from '../../plugins/profiler/panels/panel.js'
import { recordTimeline } from '../../plugins/profiler/panels/timeline/collect.js'
import { PROCESS_SITES } from '../../plugins/profiler/panels/timeline/stored-form-constants.js'
import { probedPanels } from '../../plugins/profiler/panels/probes.js'
import type { HookTimes } from '../../plugins/profiler/panels/timeline/hook-times.js'
import { timelinePanel } from '../../plugins/profiler/panels/timeline/index.js'
import { unpackRuns } from '../../plugins/profiler/panels/timeline/run-slab.js'
import { logsPanel } from '../../plugins/profiler/panels/logs/index.js'
import type { RequestLogs } from '../../plugins/profiler/panels/logs/probe.js'
import { unpackLines } from '../../plugins/profiler/panels/logs/unpack-lines.js'
import { unpackStatements } from '../../plugins/profiler/panels/db/unpack-statements.js'
import { panels as declared } from '../../plugins/profiler/panels/index.js'
import type { AnyPanel, PanelRowValues } from '../../plugins/profiler/panels/panel.js'
import { Redactor, redactionRules } from '../../lib/redact.js'
import { InlineWriter } from '../../plugins/profiler/writer/inline-writer.js'
import { buildTestApp } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { hostileText } from '../helpers/hostile.js'
import { profileJson } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'
import { timelineBefore } from '../helpers/timeline-before.js'
import { STORED_BEFORE } from '../helpers/stored-before.js'

/**
 * Every write request the inline writer is handed, as it is handed (copied before the writer reads
 * it), under the token of each capture in it (the first one handed, if a token came twice): a
 * profile's is read back without reading every request before it.
 */
const handed = new Map<string, Buffer>()
const writer = InlineWriter.prototype as unknown as { send: (request: WriterRequest) => Promise<unknown> }
writer.send = (send => async function (this: unknown, request: WriterRequest) {
  if (request.type === 'write') {
    const copy = serialize(request)
    for (const profile of request.batch) if ('kind' in profile && !handed.has(profile.token)) handed.set(profile.token, copy)
  }
  return await send.call(this, request)
})(writer.send)

const timelineAt = probedPanels.findIndex(panel => panel === timelinePanel)
const logsAt = probedPanels.findIndex(panel => panel === logsPanel)

/** The capture of `token` as the writer was handed it, its hook runs unpacked as the writer unpacks them. */
function handedCapture (token: string): { capture: RequestCapture, hooks: HookTimes | false | undefined, logs: RequestLogs | undefined } {
  const buffer = handed.get(token)
  const request = buffer === undefined ? undefined : deserialize(buffer) as Extract<WriterRequest, { type: 'write' }>
  const capture = request?.batch.find((profile): profile is RequestCapture => 'kind' in profile && profile.token === token)
  if (request === undefined || capture === undefined) throw new Error(`no capture of ${token} was handed to the writer`)
  unpackRuns(request.batch, request.runs)
  unpackLines(request.batch)
  unpackStatements(request.batch)
  return { capture, hooks: capture.taken?.[timelineAt] as HookTimes | false | undefined, logs: capture.taken?.[logsAt] as RequestLogs | undefined }
}

/** The timeline as the code before stored it (its items as values, without the duration) and read it back. */
function shownBefore (token: string, panels: Record<string, any>, row: { route: string | null, durationMs: number }) {
  const { capture, hooks } = handedCapture(token)
  const { totalMs: _totalMs, ...kept } = timelineBefore(capture, hooks, panels.db, panels.logs)
  const stored = JSON.parse(JSON.stringify({ ...kept, items: kept.items.map(item => [item.kind, item.type, item.name, item.plugin, item.startMs, item.durationMs, item.ended]) }))
  return timelinePanel.fromStored?.(stored, { method: '', url: '', status: 0, queries: 0, queryMs: 0, ...row }, {})
}

/** The timeline as the writer stored it before the process row held its sites (v 2: the runs with their own sites), read back. */
function shownFromRunsForm (token: string, panels: Record<string, any>, row: { route: string | null, durationMs: number }) {
  const { capture, hooks } = handedCapture(token)
  const stored = JSON.parse(JSON.stringify(recordTimeline({ capture } as CollectContext, hooks)))
  if (stored.v !== 2) throw new Error(`recorded without the process's sites as v ${String(stored.v)}`)
  return timelinePanel.fromStored?.(stored, { method: '', url: '', status: 0, queries: 0, queryMs: 0, ...row }, panels)
}

/** The logs panel as its collector gives it for the capture the writer was handed (as the code before stored it whole). */
function logsBefore (token: string, app: FastifyInstance): unknown {
  const { capture, logs } = handedCapture(token)
  return logsPanel.collect({ capture, redactor: new Redactor(redactionRules(app.config)), url: '', responseBody: undefined, collected: () => undefined }, logs)
}

/** Those panels as their collectors give them for the capture the writer was handed, stored in the form before and read back as JSON: what the code before showed. */
function recordedBefore (token: string, app: FastifyInstance, row: PanelRowValues): Record<string, string> {
  const { capture } = handedCapture(token)
  const redactor = new Redactor(redactionRules(app.config))
  let responseBody: unknown
  try {
    responseBody = capture.responseText === undefined ? undefined : JSON.parse(capture.responseText)
  } catch {}
  const shown: Record<string, string> = {}
  for (const name of Object.keys(STORED_BEFORE)) {
    const panel = declared.find(declaredPanel => declaredPanel.name === name) as Extract<AnyPanel, { perProcess?: false }>
    const taken = capture.taken?.[probedPanels.findIndex(probed => probed === panel)]
    const collected = panel.collect({ capture, redactor, url: redactor.url(capture.rawUrl), responseBody, collected: () => undefined }, taken as never)
    const stored = JSON.parse(JSON.stringify(STORED_BEFORE[name]?.(collected)))
    shown[name] = JSON.stringify(panel.fromStored?.(stored, row, {}))
  }
  return shown
}

const busy = (ms: number): void => {
  const until = performance.now() + ms
  while (performance.now() < until);
}

interface Plan { codes: string[], lines: Array<{ level: 'debug' | 'info' | 'warn' | 'error', message: string }>, fail: boolean, waitMs: number }

/** Test routes whose hooks and handler do what the request's headers and body say. */
function generatedRoutes (app: FastifyInstance): void {
  app.register(async function generated (plugin) {
    plugin.addHook('onRequest', function maybeEarly (request, reply, done) {
      if (request.headers['x-early'] === '1') {
        reply.code(403).send({ early: true })
        return
      }
      done()
    })
    plugin.addHook('preHandler', async function maybeWait (request) {
      const waitMs = Number(request.headers['x-wait'] ?? 0)
      if (waitMs > 0) busy(waitMs)
      if (request.headers['x-hook-throws'] === '1') throw new Error('the hook threw')
    })
    plugin.post('/test/generated', async function planned (request) {
      const plan = request.body as Plan
      for (const line of plan.lines) request.log[line.level](line.message)
      for (const code of plan.codes) await request.advisors.findByCode(code)
      if (plan.fail) throw new TypeError('planned failure', { cause: new RangeError('deeper') })
      return { ok: true }
    })
  })
}

const plan = fc.record({
  codes: fc.array(fc.constantFrom('ADV1001', 'ADV1002', 'NOPE', "x' OR 1=1"), { maxLength: 5 }),
  lines: fc.array(fc.record({
    level: fc.constantFrom('debug', 'info', 'warn', 'error'),
    message: fc.oneof(hostileText(20, 3), fc.constantFrom('  spaced\tout\nover lines  ', 'x'.repeat(400), '<b>markup</b> %s'))
  }), { maxLength: 6 }),
  fail: fc.boolean(),
  waitMs: fc.constantFrom(0, 0, 1)
})

const request = fc.record({
  plan,
  early: fc.boolean(),
  hookThrows: fc.boolean(),
  path: fc.constantFrom('/test/generated', '/test/generated', '/test/generated', '/monitor/MonitorPooling', '/nowhere'),
  query: fc.dictionary(hostileText(10, 2), hostileText(10, 2), { maxKeys: 2 }).map(values => new URLSearchParams(values).toString()),
  // Header names as HTTP allows them, values of visible ASCII and spaces (what inject() sends), and credentials.
  headers: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,12}$/), fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,20}$/), { maxKeys: 3 }),
  authorization: fc.option(fc.constantFrom('Bearer abc.def', 'Basic dXNlcjpwYXNz'), { nil: undefined })
})

const engines = storeEngines(t)

for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip }, async t => {
    const secret = 'timeline-stored-secret'
    const apps = {
      sampled: await buildTestApp(t, { ...await engine.fresh(t), PROFILER_LOG_LEVEL: 'debug' }, generatedRoutes),
      // The sample leaves every request out: the failed ones are kept by the rule, their hook runs not timed.
      sampledOut: await buildTestApp(t, { ...await engine.fresh(t), PROFILER_SAMPLE: '0', PROFILER_SECRET: secret }, generatedRoutes)
    }
    let compared = 0
    await fc.assert(fc.asyncProperty(request, fc.boolean(), async ({ plan, early, hookThrows, path, query, headers, authorization }, out) => {
      const app = out ? apps.sampledOut : apps.sampled
      const res = await app.inject({
        method: 'POST',
        url: query === '' ? path : `${path}?${query}`,
        headers: {
          ...headers,
          ...(authorization === undefined ? {} : { authorization }),
          'content-type': 'application/json',
          ...(early ? { 'x-early': '1' } : { 'x-early': '0' }),
          ...(hookThrows ? { 'x-hook-throws': '1' } : { 'x-hook-throws': '0' }),
          'x-wait': String(plan.waitMs)
        },
        payload: JSON.stringify(plan)
      })
      // Left out by the sample and kept by no rule: nothing stored to compare.
      if (out && res.statusCode < 500) return
      const token = tokenOf(res)
      const shown = await profileJson(app, token)
      const before = shownBefore(token, shown.panels, { route: shown.route, durationMs: shown.durationMs })
      compared++
      if (JSON.stringify(shown.panels.timeline) !== JSON.stringify(before)) {
        throw new Error(`${path} -> ${res.statusCode}: the timeline read back differs from the one collected before:\n${JSON.stringify(shown.panels.timeline)}\n${JSON.stringify(before)}`)
      }
      const runsForm = shownFromRunsForm(token, shown.panels, { route: shown.route, durationMs: shown.durationMs })
      if (JSON.stringify(runsForm) !== JSON.stringify(before)) {
        throw new Error(`${path} -> ${res.statusCode}: the timeline stored with its own sites (v 2) reads back otherwise:\n${JSON.stringify(runsForm)}\n${JSON.stringify(before)}`)
      }
      if (PROCESS_SITES in shown.panels) throw new Error('the process\'s sites shown as a panel')
      const row = { method: shown.method, url: shown.url, route: shown.route, status: shown.status, durationMs: shown.durationMs, queries: shown.queries, queryMs: shown.queryMs }
      for (const [name, before] of Object.entries(recordedBefore(token, app, row))) {
        if (JSON.stringify(shown.panels[name]) !== before) throw new Error(`${path} -> ${res.statusCode}: the ${name} panel read back differs from the one collected before:\n${JSON.stringify(shown.panels[name])}\n${before}`)
      }
      const logs = logsBefore(token, app)
      if (JSON.stringify(shown.panels.logs) !== JSON.stringify(logs)) {
        throw new Error(`${path} -> ${res.statusCode}: the logs read back differ from the ones collected:\n${JSON.stringify(shown.panels.logs)}\n${JSON.stringify(logs)}`)
      }
    }), { numRuns: 120, seed: 3829 })
    t.ok(compared > 60, `${compared} generated requests' timelines the same as before, key for key`)
    handed.clear()
  })
}
