// run-suite: shares a process

// The timeline panel on both store engines: one bar per hook run (callback, async, route-level;
// throwing, rejecting, replying early), the handler and each statement, a tick per log line, on
// one SVG; the threshold links hide short items and say how many; names escaped; the cap on hook
// runs; each hook named as Fastify names its instance; Fastify's checks of a hook's signature kept
// through the wrappers; the page's JSON twin equal to the CLI's
// `show --panel timeline` and MCP's get_profile.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import t from 'tap'
import { MAX_HOOK_RUNS } from '../../plugins/profiler/panels/timeline/hook-runs.js'
import { buildTestApp } from '../helpers/app.js'
import { json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { profileJson, profilerHtml, storeOnly } from '../helpers/profiler.js'
import { profiler } from '../helpers/profiler-cli.js'
import { storeEngines } from '../helpers/store-engines.js'

const engines = storeEngines(t)

const HOSTILE = '<script>alert("x")</script>'
/** A hook that takes at least this long (a busy wait measured on the clock the timings use). */
const LONG_MS = 2

interface Item { kind: string, type: string, name: string, plugin: string, startMs: number, durationMs: number, ended: boolean }

/** Busy for `ms` by the clock (no sleep): a hook whose duration has a known lower bound. */
function busy (ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

/** Names a function as a hostile plugin might. */
function named<F extends (...args: never[]) => unknown> (name: string, fn: F): F {
  Object.defineProperty(fn, 'name', { value: name })
  return fn
}

/**
 * Test-only routes in an encapsulated plugin, with hooks of every style; `runs` collects each
 * test hook's name as it runs (what the timeline must show).
 */
function timelineRoutes (runs: string[]) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(async function timelineTest (plugin) {
      plugin.addHook('onRequest', function checkCallback (_request, _reply, done) {
        runs.push('checkCallback')
        done()
      })
      plugin.addHook('preHandler', async function loadAsync () {
        runs.push('loadAsync')
        busy(LONG_MS)
      })
      plugin.addHook('onSend', named(HOSTILE, (_request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
        runs.push(HOSTILE)
        done(null, payload)
      }))
      plugin.get('/test/timeline', {
        preValidation: function routeOwn (_request, _reply, done) {
          runs.push('routeOwn')
          done()
        }
      }, async function lookups (request) {
        request.log.info('looking up two advisors')
        await request.advisors.findByCode('ADV1001')
        await request.advisors.findByCode('ADV1002')
        request.log.warn(`<img src=x onerror=alert(1)> ${HOSTILE}`)
        return { ok: true }
      })
      plugin.get('/test/early', {
        onRequest: function replyEarly (_request, reply) {
          runs.push('replyEarly')
          reply.code(403).send({ early: true })
        }
      }, async () => ({ unreachable: true }))
      plugin.get('/test/throws', {
        preHandler: function throwing () {
          runs.push('throwing')
          throw new Error('the hook threw')
        }
      }, async () => ({ unreachable: true }))
      plugin.get('/test/rejects', {
        preHandler: async function rejecting () {
          runs.push('rejecting')
          throw new Error('the hook rejected')
        }
      }, async () => ({ unreachable: true }))
      // 250 route hooks: past the cap on runs a request (MAX_HOOK_RUNS, 200).
      plugin.get('/test/many', { preHandler: Array.from({ length: 250 }, () => (_request: FastifyRequest, _reply: FastifyReply, done: () => void) => { done() }) }, async () => ({ ok: true }))
    })
  }
}

/**
 * Hooks added by fastify-plugin plugins (which share their parent's instance): one after awaiting a
 * nested plugin, two by a plugin that takes `done` (before and after calling it), one in an after()
 * callback, one by a plugin registered as a promise of a module, and one by the app on the root.
 */
async function namedHooks (app: FastifyInstance): Promise<void> {
  const pass = (_request: FastifyRequest, _reply: FastifyReply, done: () => void): void => { done() }
  const inner = fp(async function innerPlugin (instance: FastifyInstance) {
    instance.addHook('onRequest', named('innerHook', pass))
  }, { name: 'test-inner' })
  await app.register(fp(async function outerPlugin (instance: FastifyInstance) {
    await instance.register(inner)
    instance.addHook('onRequest', named('outerHook', pass))
  }, { name: 'test-outer' }))
  await app.register(fp(function callbackPlugin (instance: FastifyInstance, _opts: unknown, done: () => void) {
    instance.addHook('onRequest', named('callbackHook', pass))
    done()
    instance.addHook('onRequest', named('afterDoneHook', pass))
  }, { name: 'test-callback' }))
  await app.register(fp(async function afterPlugin (instance: FastifyInstance) {
    instance.register(inner).after(() => { instance.addHook('onRequest', named('inAfterHook', pass)) })
  }, { name: 'test-after' }))
  // A promise of a module, as a dynamic import gives.
  await app.register(Promise.resolve({
    default: fp(async function importedPlugin (instance: FastifyInstance) {
      instance.addHook('onRequest', named('importedHook', pass))
    }, { name: 'test-imported' })
  }))
  app.addHook('onRequest', named('rootHook', pass))
  app.get('/test/named', async () => ({ ok: true }))
  await app.register(async function encapsulatedPlugin (instance: FastifyInstance) {
    instance.addHook('onRequest', named('encapsulatedHook', pass))
    instance.get('/test/encapsulated', async () => ({ ok: true }))
  })
}

const tokenOf = (res: { headers: Record<string, unknown> }): string => res.headers['x-debug-token'] as string
const timelineOf = async (app: FastifyInstance, token: string) => (await profileJson(app, token, '?panel=timeline')).panels.timeline as { totalMs: number, items: Item[], logs: Array<{ offsetMs: number, level: string, message: string }>, phases: Array<{ name: string }>, omitted: { hooks: number, statements: number, logs: number } }
const TEST_HOOKS = new Set(['checkCallback', 'routeOwn', 'loadAsync', HOSTILE])
const testHooks = (items: Item[]): Item[] => items.filter(item => item.kind === 'hook' && TEST_HOOKS.has(item.name))

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const { fresh } = engine

    t.test('a bar per hook run, the handler and each statement; a tick per log line', async t => {
      const runs: string[] = []
      const app = await buildTestApp(t, await fresh(t), timelineRoutes(runs))
      const res = await app.inject({ url: '/test/timeline' })
      t.equal(res.statusCode, 200)
      const token = tokenOf(res)
      const { panels } = await profileJson(app, token)
      const { items, logs, phases, omitted } = panels.timeline as Awaited<ReturnType<typeof timelineOf>>

      // The test's own hooks: each run once, in the order they ran, with its type and plugin.
      t.same(testHooks(items).map(item => `${item.type} ${item.plugin} ${item.name}`), [
        'onRequest timelineTest checkCallback',
        'preValidation route routeOwn',
        'preHandler timelineTest loadAsync',
        `onSend timelineTest ${HOSTILE}`
      ])
      t.same(runs, ['checkCallback', 'routeOwn', 'loadAsync', HOSTILE])
      t.ok(items.every(item => item.ended), 'every run ended')
      const hookNames = items.filter(item => item.kind === 'hook').map(item => `${item.type} ${item.plugin}`)
      t.ok(hookNames.includes('preHandler profiler') && hookNames.includes('onSend profiler'), 'the plugins\' hooks are there too (the profiler\'s own)')

      const long = items.find(item => item.name === 'loadAsync')
      t.ok(long !== undefined && long.durationMs >= LONG_MS, `the async hook lasted its ${LONG_MS} ms at least (${long?.durationMs ?? 0})`)
      const handler = items.filter(item => item.kind === 'handler')
      t.match(handler, [{ type: 'handler', name: 'lookups', plugin: '/test/timeline', ended: true }])
      const handlerStart = handler[0]?.startMs ?? 0
      t.ok((long?.startMs ?? 0) + (long?.durationMs ?? 0) <= handlerStart, 'the preHandler hook ended before the handler began')

      // The statements: the db panel's, at the same offsets.
      const statements = items.filter(item => item.kind === 'statement')
      t.same(statements.map(({ startMs, durationMs }) => ({ startMs, durationMs })), panels.db.statements.map(({ startMs, durationMs }: Item) => ({ startMs, durationMs })))
      t.equal(statements.length, 2)
      t.match(statements[0], { type: 'SELECT', name: /^SELECT .* FROM advisors/ })
      t.ok(statements.every(item => item.startMs >= handlerStart && item.startMs + item.durationMs <= handlerStart + (handler[0]?.durationMs ?? 0) + 0.002), 'the statements ran inside the handler')

      // The log lines: the logs panel's, at the same offsets.
      t.same(logs.map(line => line.offsetMs), panels.logs.lines.map((line: { offsetMs: number }) => line.offsetMs))
      t.same(logs.map(line => line.level), ['info', 'info', 'warn', 'info'])
      t.same(phases.map(phase => phase.name), ['before', 'handler', 'sending'])
      t.same(omitted, { hooks: 0, statements: 0, logs: 0 })
      const starts = items.map(item => item.startMs)
      t.same(starts, [...starts].sort((a, b) => a - b), 'by start')

      // The page: one SVG, a bar per item, a tick per line, no script.
      const page = await profilerHtml(app, `/${token}?panel=timeline`)
      t.equal(page.match(/<svg id="timeline-chart"/g)?.length, 1)
      t.equal(page.match(/<g class="item item-hook"/g)?.length, items.filter(item => item.kind === 'hook').length, 'a bar per hook run')
      t.equal(page.match(/<g class="item item-statement"/g)?.length, 2, 'a bar per statement')
      t.equal(page.match(/<g class="item item-handler"/g)?.length, 1)
      t.equal(page.match(/<rect class="log-tick/g)?.length, 4, 'a tick per log line')
      t.match(page, /<text x="[\d.]+" y="12" text-anchor="middle">0 ms<\/text>/, 'the axis is labelled in ms')
      t.notMatch(page, /<script/)
    })

    t.test('each hook is named as Fastify names its instance when the hook is added: the last plugin loaded into it', async t => {
      const app = await buildTestApp(t, await fresh(t), namedHooks)
      const { items } = await timelineOf(app, tokenOf(await app.inject({ url: '/test/named' })))
      const hooks = items.filter(item => item.kind === 'hook')
      // Each hook's plugin (sorted: the order in which avvio loads a plugin given as a promise is not the point here).
      t.same(hooks.filter(item => item.name.endsWith('Hook')).map(item => `${item.name} ${item.plugin}`).sort(), [
        'innerHook test-inner',
        // Added after its nested plugin was loaded into the same instance: named after that one.
        'outerHook test-inner',
        'callbackHook test-callback',
        'afterDoneHook test-callback',
        'innerHook test-inner',
        'inAfterHook test-inner',
        'importedHook test-imported',
        // Added to the root after the plugins: named after the last one loaded.
        'rootHook test-imported'
      ].sort(), 'a plugin that takes done (a hook before and after calling it), a dynamic import; a plugin that awaited a nested one, an after() callback, the root after them')
      // An encapsulated plugin's hooks: named after it (the first of its instance's chain, while no fastify-plugin plugin was loaded into it).
      const { items: routeItems } = await timelineOf(app, tokenOf(await app.inject({ url: '/test/encapsulated' })))
      t.ok(routeItems.some(item => item.name === 'encapsulatedHook' && item.plugin === 'encapsulatedPlugin'), 'an encapsulated plugin\'s own hook')
      // @fastify/view adds its onRequest hook after loading its nested @fastify/view/cache plugin.
      t.ok(hooks.some(item => item.type === 'onRequest' && item.plugin === '@fastify/view/cache'), 'the views plugin\'s hook, named after its nested plugin')
      t.ok(hooks.some(item => item.type === 'preHandler' && item.plugin === 'profiler'), 'the profiler\'s')
    })

    t.test('Fastify\'s checks of a hook\'s signature still apply to the hooks it times: an async hook that takes done is refused', async t => {
      const asyncWithDone = async (_request: FastifyRequest, _reply: FastifyReply, _done: () => void): Promise<void> => {}
      for (const [where, extend] of [
        ['added to an instance', (app: FastifyInstance) => { app.addHook('onRequest', asyncWithDone as never) }],
        ['a route\'s own', (app: FastifyInstance) => { app.get('/test/refused', { onRequest: asyncWithDone as never }, async () => ({})) }]
      ] as const) {
        await t.rejects(buildTestApp(t, await fresh(t), extend), { code: 'FST_ERR_HOOK_INVALID_ASYNC_HANDLER' }, where)
      }
      const app = await buildTestApp(t, await fresh(t), app => {
        app.addHook('onSend', async (_request: FastifyRequest, _reply: FastifyReply, payload: unknown) => payload)
        app.addHook('onSend', (_request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => { done(null, payload) })
        app.get('/test/allowed', async () => ({ ok: true }))
      })
      t.equal((await app.inject({ url: '/test/allowed' })).statusCode, 200, 'an async hook without done and a callback hook with it are taken')
    })

    t.test('the threshold links hide shorter items and say how many', async t => {
      const app = await buildTestApp(t, await fresh(t), timelineRoutes([]))
      const token = tokenOf(await app.inject({ url: '/test/timeline' }))
      const { items } = await timelineOf(app, token)
      const all = await profilerHtml(app, `/${token}?panel=timeline`)
      t.match(all, '<strong>all</strong>')
      t.match(all, `<a href="/_profiler/${token}?panel=timeline&amp;threshold=1">1.00 ms and longer</a>`)
      t.notMatch(all, 'id="timeline-hidden"', 'nothing hidden at 0')

      const page = await profilerHtml(app, `/${token}?panel=timeline&threshold=1`)
      const kept = items.filter(item => item.durationMs >= 1)
      t.ok(kept.some(item => item.name === 'loadAsync'), 'the long hook is kept')
      const hidden = items.length - kept.length
      t.ok(hidden > 0)
      t.match(page, `<strong>${hidden} item(s) shorter than 1.00 ms hidden</strong>: <a href="/_profiler/${token}?panel=timeline&amp;threshold=0">show all</a>.`)
      t.match(page, '<strong>1.00 ms and longer</strong>')
      t.equal(page.match(/<g class="item /g)?.length, kept.length, 'only the items of 1 ms and more are drawn')
      t.equal(page.match(/<rect class="log-tick/g)?.length, 4, 'log lines are never hidden')

      const odd = await profilerHtml(app, `/${token}?panel=timeline&threshold=-1`)
      t.equal(odd.match(/<g class="item /g)?.length, items.length, 'a threshold that is not a number of ms shows everything')
    })

    t.test('hooks that reply early, throw or reject', async t => {
      const app = await buildTestApp(t, await fresh(t), timelineRoutes([]))
      const early = await app.inject({ url: '/test/early' })
      t.equal(early.statusCode, 403)
      const earlyItems = (await timelineOf(app, tokenOf(early))).items
      const replied = earlyItems.find(item => item.name === 'replyEarly')
      t.match(replied, { type: 'onRequest', plugin: 'route', ended: false }, 'a hook that never called done has no end of its own')
      const after = earlyItems.find(item => item.startMs > (replied?.startMs ?? 0))
      const drawnTo = (replied?.startMs ?? 0) + (replied?.durationMs ?? 0)
      t.ok(Math.abs(drawnTo - (after?.startMs ?? Infinity)) <= 0.0015, `it is drawn up to the next item (${drawnTo}, ${after?.startMs ?? 'none'}; each rounded to the µs)`)
      t.notOk(earlyItems.some(item => item.kind === 'handler'), 'no handler ran')
      t.match(await profilerHtml(app, `/${tokenOf(early)}?panel=timeline`), /<g class="item item-hook not-ended">/)

      for (const [url, name] of [['/test/throws', 'throwing'], ['/test/rejects', 'rejecting']]) {
        const res = await app.inject({ url })
        t.equal(res.statusCode, 500)
        const { items } = await timelineOf(app, tokenOf(res))
        t.match(items.find(item => item.name === name), { type: 'preHandler', plugin: 'route', ended: true }, `${name}: ended when it failed`)
        t.notOk(items.some(item => item.kind === 'handler'), `${name}: no handler ran`)
        t.ok(items.some(item => item.type === 'onError' || item.type === 'onSend'), `${name}: the error's answer is on the timeline`)
      }
    })

    t.test(`at most ${MAX_HOOK_RUNS} hook runs a request, the rest counted`, async t => {
      const app = await buildTestApp(t, await fresh(t), timelineRoutes([]))
      const few = await timelineOf(app, tokenOf(await app.inject({ url: '/test/timeline' })))
      const many = await timelineOf(app, tokenOf(await app.inject({ url: '/test/many' })))
      const kept = many.items.filter(item => item.kind === 'hook').length
      t.equal(kept, MAX_HOOK_RUNS)
      t.ok(many.omitted.hooks > 0)
      // The app's own hooks run on both routes (the test plugin's three and /test/timeline's own apart);
      // the handler's run counts too, past the cap here.
      const appRuns = few.items.filter(item => item.kind === 'hook').length - 4
      t.notOk(many.items.some(item => item.kind === 'handler'), 'the handler came after the runs kept')
      t.equal(kept + many.omitted.hooks, appRuns + 3 + 250 + 1, 'every run counted')
      t.match(await profilerHtml(app, `/${tokenOf(await app.inject({ url: '/test/many' }))}?panel=timeline`), /id="timeline-omitted">Not drawn, past the captures' caps: \d+ hook run\(s\), 0 statement\(s\), 0 log line\(s\)\./)
    })

    t.test('a request the sample left out and a rule kept: its hook runs not timed, and the page says so', async t => {
      const secret = 'timeline-keep-secret'
      const app = await buildTestApp(t, { ...await fresh(t), PROFILER_SAMPLE: '0', PROFILER_SECRET: secret }, timelineRoutes([]))
      const failed = await app.inject({ url: '/test/throws' })
      t.equal(failed.statusCode, 500, 'a server error: kept whatever the sample')
      const timeline = (await profileJson(app, tokenOf(failed), '?panel=timeline')).panels.timeline as Awaited<ReturnType<typeof timelineOf>> & { hooksTimed: boolean }
      t.equal(timeline.hooksTimed, false)
      t.same(timeline.items.filter(item => item.kind !== 'statement'), [], 'no hook run, no handler run')
      t.ok(timeline.phases.length > 0, 'the phases are still there')
      t.match(await profilerHtml(app, `/${tokenOf(failed)}?panel=timeline`), /Hook runs not timed: the sample/)

      const forced = await app.inject({ url: '/test/timeline', headers: { 'x-profiler-keep': secret } })
      const forcedTimeline = (await profileJson(app, tokenOf(forced), '?panel=timeline')).panels.timeline as Awaited<ReturnType<typeof timelineOf>> & { hooksTimed: boolean }
      t.equal(forcedTimeline.hooksTimed, true, 'a request asked for is timed in full')
      t.same(testHooks(forcedTimeline.items).map(item => item.name), ['checkCallback', 'routeOwn', 'loadAsync', HOSTILE])
      t.notMatch(await profilerHtml(app, `/${tokenOf(forced)}?panel=timeline`), /Hook runs not timed/)
    })

    t.test('names and messages are escaped', async t => {
      const app = await buildTestApp(t, await fresh(t), timelineRoutes([]))
      const token = tokenOf(await app.inject({ url: '/test/timeline' }))
      const page = await profilerHtml(app, `/${token}?panel=timeline`)
      t.notMatch(page, HOSTILE)
      t.notMatch(page, '<img src=x')
      t.match(page, 'onSend timelineTest &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
      t.match(page, /<title>[\d.]+ ms warn: &lt;img src&#x3D;x onerror&#x3D;alert\(1\)&gt; &lt;script&gt;/)
    })

    t.test('the command line (show --panel timeline) and MCP (get_profile) give the page\'s JSON', async t => {
      const env = await fresh(t)
      const app = await buildTestApp(t, env, timelineRoutes([]))
      const token = tokenOf(await app.inject({ url: '/test/timeline' }))
      const page = await profileJson(app, token, '?panel=timeline')
      await app.close()
      t.ok(page.panels.timeline.items.length > 0)

      const shown = await profiler(['show', token, '--panel', 'timeline', '--json'], env)
      t.same(JSON.parse(shown.stdout), storeOnly(page), 'show --json: the page\'s JSON (but what is kept: the service\'s settings)')
      const text = await profiler(['show', token, '--panel', 'timeline'], env)
      t.match(text.stdout, /\n\[timeline\]\n\{\n {2}"totalMs": /)

      const client = await mcpClientInProcess(t, env)
      const detail = await json(client, 'get_profile', { token, panels: ['timeline'] })
      t.same(detail.panels, { timeline: page.panels.timeline }, 'get_profile: the page\'s panel')
    })
  })
}
