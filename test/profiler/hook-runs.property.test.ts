// run-suite: shares a process
// The timeline's hook runs cross to the writer as numbers in one transferred buffer a batch
// (panels/timeline/run-slab.ts). For generated requests (runs of generated sites begun and ended in
// any order, some never ended, past the recorder's growth and past the cap on runs; batches
// answered with some captures to retry, recorders reused from the pool), what the writer rebuilds
// deep-equals what the structured clone of the per-request arrays gave it before (the reference
// recorder below is that code, driven by the same clock), and through app.inject the stored
// timeline shows each generated hook's run, in order, as it ran.
import fc from 'fast-check'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import t from 'tap'
import type { RequestCapture } from '../../plugins/profiler/capture/capture.js'
import { probedPanels } from '../../plugins/profiler/panels/probes.js'
import { acquireRuns, HookRuns, MAX_HOOK_RUNS, numberSite, runsOf, type HookSite, type RunsOwner } from '../../plugins/profiler/panels/timeline/hook-runs.js'
import type { HookTimes } from '../../plugins/profiler/panels/timeline/hook-times.js'
import { timelinePanel } from '../../plugins/profiler/panels/timeline/index.js'
import { PackedRuns, unpackRuns } from '../../plugins/profiler/panels/timeline/run-slab.js'
import { buildTestApp } from '../helpers/app.js'
import { profileJson } from '../helpers/profiler.js'
import { takenCaptures } from '../helpers/taken-capture.js'

const TIMELINE = probedPanels.findIndex(panel => panel === timelinePanel)

/** The recording as it was before the slab: a site reference and two numbers a run, in arrays. */
class ReferenceTimes implements HookTimes {
  sites: HookSite[] = []
  times: number[] = []
  omitted = 0
  begin (site: HookSite): number {
    if (this.sites.length >= MAX_HOOK_RUNS) {
      this.omitted++
      return -1
    }
    this.sites.push(site)
    return this.times.push(performance.now(), Number.NaN) - 1
  }

  finish (at: number): void {
    if (at >= 0 && Number.isNaN(this.times[at])) this.times[at] = performance.now()
  }
}

/**
 * A clock that moves by a generated step every second reading: play() has both recorders read it
 * in turn for each event (or neither), so that they see the same time.
 */
function withClock<T> (steps: number[], run: () => T): T {
  let now = 1000.125
  let reads = 0
  Object.defineProperty(performance, 'now', { configurable: true, value: () => reads++ % 2 === 0 ? (now += steps[(reads >> 1) % steps.length] ?? 0.5) : now })
  try {
    return run()
  } finally {
    delete (performance as { now?: unknown }).now
  }
}

const SITES: HookSite[] = Array.from({ length: 12 }, (_, i) => ({ hook: ['onRequest', 'preHandler', 'handler', 'onSend', 'onResponse'][i % 5] as string, name: i % 3 === 0 ? '' : `hook${i}`, plugin: i % 4 === 0 ? 'route' : `plugin-${i}` }))
const NUMBERS = SITES.map(numberSite)

/** One request: which site each run is of, and the order runs end in (an index among the open ones; some never). */
const request = fc.record({
  runs: fc.array(fc.nat(SITES.length - 1), { maxLength: 230 }),
  ends: fc.array(fc.nat(300), { maxLength: 260 }),
  endEvery: fc.integer({ min: 1, max: 4 })
})
type Script = typeof request extends fc.Arbitrary<infer S> ? S : never

/** Plays a request's script on both recorders: begins each run, and ends runs in the script's order as it goes. */
function play (script: Script, runs: HookRuns, reference: ReferenceTimes): void {
  const open: Array<[number, number]> = []
  let next = 0
  const endOne = (): void => {
    if (open.length === 0) return
    const pick = (script.ends[next++] ?? 0) % open.length
    const [run, at] = open.splice(pick, 1)[0] as [number, number]
    runs.finish(run)
    reference.finish(at)
    // A second end (a done called twice) changes nothing.
    runs.finish(run)
    reference.finish(at)
  }
  script.runs.forEach((site, i) => {
    const run = runs.begin(NUMBERS[site] as number)
    const at = reference.begin(SITES[site] as HookSite)
    if (run >= 0) open.push([run, at])
    if (i % script.endEvery === 0) endOne()
  })
  // Some runs end after the request was taken (its onResponse hooks), before the batch leaves.
  while (open.length > 1 && next < script.ends.length) endOne()
}

const capture = takenCaptures(timelinePanel)

t.test('what the writer rebuilds from a batch\'s slab deep-equals the clone of the arrays', async t => {
  let checked = 0
  fc.assert(fc.property(fc.array(fc.array(request, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), fc.array(fc.double({ min: 0.001, max: 3, noNaN: true }), { minLength: 1, maxLength: 5 }), fc.array(fc.boolean(), { maxLength: 24 }), (batches, steps, retries) => {
    withClock(steps, () => {
      // Captures a retried batch puts back, with their expected runs: they go first in the next batch.
      let carried: Array<{ capture: RequestCapture, expected: HookTimes }> = []
      let decision = 0
      for (const scripts of batches) {
        const batch = [...carried]
        for (const [i, script] of scripts.entries()) {
          const owner: RunsOwner = { profilerHookTimes: null, profilerHookGeneration: 0 }
          const runs = acquireRuns(owner)
          const reference = new ReferenceTimes()
          play(script, runs, reference)
          batch.push({ capture: capture(`t${checked}-${i}`, runs), expected: reference })
        }
        // A capture the sample left out carries false, one with no hooks nothing: both cross as they are.
        const others = [capture('left-out', false), capture('no-hooks', undefined)]
        const profiles = [...batch.map(entry => entry.capture), ...others]
        const packed = PackedRuns.of(profiles)
        if (packed === null) throw new Error('a batch with runs packed nothing')
        // What postMessage does: the buffer moved, the rest cloned.
        const message = structuredClone({ batch: profiles, runs: packed.runs }, { transfer: [packed.runs.slab.buffer] })
        if (packed.runs.slab.byteLength !== 0) throw new Error('the slab was not transferred')
        unpackRuns(message.batch, message.runs)
        const rebuilt = message.batch.map(profile => profile.taken?.[TIMELINE])
        const before = structuredClone([...batch.map(entry => entry.expected), false, undefined].map(times => times instanceof ReferenceTimes ? { sites: times.sites, times: times.times, omitted: times.omitted } : times))
        t.strictSame(rebuilt, before)
        // The batch carries the sites its runs name, each once.
        t.equal(message.runs.sites.length, new Set(batch.flatMap(entry => entry.expected.sites)).size)
        const retried = new Set(batch.filter(() => retries[decision++ % Math.max(1, retries.length)] === true).map(entry => entry.capture))
        packed.settle(c => retried.has(c))
        carried = batch.filter(entry => retried.has(entry.capture))
        for (const entry of carried) {
          if (!((entry.capture.taken as unknown[])[TIMELINE] instanceof HookRuns)) throw new Error('a retried capture did not get its runs back')
        }
      }
      checked++
    })
  }), { numRuns: 150 })
  t.ok(checked >= 150, `${checked} generated runs checked`)
})

t.test('a recorder goes back to the pool only with every run ended, and its request lets go of it', async t => {
  const owner: RunsOwner = { profilerHookTimes: null, profilerHookGeneration: 0 }
  const open = acquireRuns(owner)
  open.begin(NUMBERS[0] as number)
  const packed = PackedRuns.of([capture('open', open)])
  packed?.settle(() => false)
  t.equal(runsOf(owner), null, 'the request no longer reaches it')
  const reused = acquireRuns({ profilerHookTimes: null, profilerHookGeneration: 0 })
  t.not(reused, open, 'a recorder with a run still open is not reused')
  // Its run ends late: it lands in its own recorder, no one else's.
  open.finish(0)
  t.equal(reused.count, 0)
})

/** A hook of each style Fastify runs, named, recording that it ran. */
type Style = 'callback' | 'async' | 'promise' | 'throws' | 'rejects'
const hookOf = (style: Style, name: string, ran: string[]) => {
  const hooks: Record<Style, unknown> = {
    callback: function (_request: FastifyRequest, _reply: FastifyReply, done: () => void) { ran.push(name); done() },
    async: async function () { ran.push(name) },
    promise: function () { ran.push(name); return Promise.resolve() },
    throws: function () { ran.push(name); throw new Error(`${name} threw`) },
    rejects: async function () { ran.push(name); throw new Error(`${name} rejected`) }
  }
  const hook = hooks[style] as (...args: unknown[]) => unknown
  Object.defineProperty(hook, 'name', { value: name })
  return hook
}

const routeHooks = fc.array(fc.record({ phase: fc.constantFrom('onRequest', 'preValidation', 'preHandler'), style: fc.constantFrom<Style>('callback', 'async', 'promise', 'throws', 'rejects') }), { maxLength: 6 })

t.test('through app.inject: the stored timeline has each generated hook\'s run, in order, as it ran', async t => {
  const routes = fc.sample(routeHooks, { numRuns: 25, seed: 38 })
  const ran: string[][] = routes.map(() => [])
  const app = await buildTestApp(t, {}, async (app: FastifyInstance) => {
    await app.register(async function generatedHooks (plugin) {
      routes.forEach((hooks, route) => {
        const options: Record<string, unknown[]> = {}
        hooks.forEach(({ phase, style }, i) => { (options[phase] ??= []).push(hookOf(style, `r${route}h${i}${style}`, ran[route] as string[])) })
        plugin.get(`/test/generated/${route}`, options, async () => ({ route }))
      })
    })
  })
  for (const [route] of routes.entries()) {
    const res = await app.inject({ url: `/test/generated/${route}` })
    const token = res.headers['x-debug-token'] as string
    const { items } = (await profileJson(app, token, '?panel=timeline')).panels.timeline as { items: Array<{ kind: string, name: string, plugin: string, ended: boolean }> }
    const generated = items.filter(item => item.kind === 'hook' && item.name.startsWith(`r${route}h`))
    t.strictSame(generated.map(item => item.name), ran[route], `route ${route}: the hooks that ran, in order`)
    t.ok(generated.every(item => item.plugin === 'route' && item.ended), `route ${route}: each a route hook, ended`)
    t.equal(items.filter(item => item.kind === 'handler').length, (ran[route] as string[]).some(name => /threw|throws|rejects/.test(name)) ? 0 : 1, `route ${route}: the handler ran unless a hook failed`)
  }
})
