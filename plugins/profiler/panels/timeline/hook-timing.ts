// When each Fastify hook and the handler of a request ran, for the timeline panel: raw numbers on
// the request thread (the number of the hook's site, given once when it was added, and two
// performance.now() readings, in the request's HookRuns: hook-runs.ts), shaped in the writer
// thread (collect.ts).
//
// Hooks are timed by wrapping them as they are added, which is why this is installed on the root
// instance before any plugin: `addHook` is replaced there (every plugin's instance inherits it,
// encapsulated or not), and each route's own hooks (route options, and what other plugins' onRoute
// hooks add to them, as @fastify/compress's onSend) are wrapped once every onRoute hook has run
// for the route. Wrapping works the same for every style of hook, where Fastify's own diagnostics
// channels only trace the handler:
// - an async hook (or one returning a promise) ends when its promise settles, resolved or rejected;
//   the wrapper is a plain function of the same length that returns the hook's own promise, except
//   for an async hook Fastify refuses at registration (one that also takes `done`): its wrapper is
//   an async function, so that Fastify's checks see what they would see of the hook itself;
// - a callback hook ends when it calls done (whatever it passes: an error, a new payload);
// - a hook that throws ends when it throws;
// - a hook that replies early and never calls done has no end: the writer ends it where the next
//   item of the request began (collect: `ended: false`).
// The handler is wrapped the same way, as a run of its own ("handler"), rather than traced through
// Fastify's channel (tracing:fastify.request.handler): the channel starts even when a preHandler
// hook failed and the handler is never called, and its end comes once the answer was sent.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { acquireRuns, numberSite, runsOf, type HookRuns, type HookSite } from './hook-runs.js'
import { isThenable } from './thenable.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's hook runs (null before the first); installed by timeHooks(). */
    profilerHookTimes: HookRuns | null
    /** The recorder's generation when this request acquired it (hook-runs.ts: runsOf). */
    profilerHookGeneration: number
  }
}

const LIFECYCLE_HOOKS = new Set(['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort'])

type Hook = (this: unknown, ...args: unknown[]) => unknown

/** The class of every async function (not a global: reached through one). */
const AsyncFunction = (async () => {}).constructor

/** Wrappers made by timed(): a hook is wrapped once, however often a route's options are looked at. */
const wrappers = new WeakSet<Hook>()

/** The request's hook runs, made at its first timed run; null when the sample left it out (recorder.ts): its runs are not timed. */
function timesOf (request: FastifyRequest): HookRuns | null {
  // The draw, once made, is a plain field: the getter (which makes it) is called at the first run only.
  if (request.profilerDrawn === null && !request.profilerSampled) return null
  return runsOf(request) ?? acquireRuns(request)
}

/** What Fastify puts between the names of `pluginName`'s chain. */
const CHAIN_SEPARATOR = ' -> '

/**
 * The plugin adding a hook to `instance` now, as Fastify names the instance (its documented
 * `pluginName`: "fastify -> compress -> views", the plugin that made the instance, then each
 * fastify-plugin plugin loaded into it so far): the last of that chain. A hook added after a nested
 * fastify-plugin plugin was loaded into the same instance is named after that nested plugin.
 */
function pluginAddingHook (instance: FastifyInstance): string {
  const chain = instance.pluginName
  const last = chain.lastIndexOf(CHAIN_SEPARATOR)
  return last === -1 ? chain : chain.slice(last + CHAIN_SEPARATOR.length)
}

/** Calls a hook with the arguments Fastify gave it (`arity` of a, b, c, d). */
function callHook (fn: Hook, self: unknown, arity: number, a: unknown, b: unknown, c: unknown, d: unknown): unknown {
  return arity === 3 ? fn.call(self, a, b, c) : arity === 4 ? fn.call(self, a, b, c, d) : fn.call(self, a, b)
}

/**
 * Fastify's `done` for a timed run: the run ends when it is called, whatever it is given (an error,
 * a new payload), unless the request has let go of its runs (handed over with their batch: the
 * recorder's generation changed, and a done called twice would reach it reused for another request).
 */
function timedDone (done: Hook, times: HookRuns, generation: number, at: number): Hook {
  return function timedDone (this: unknown, err?: unknown, value?: unknown) {
    if (times.generation === generation) times.finish(at)
    // Fastify's done takes at most an error and a value, and reads an absent one as undefined.
    return done.call(this, err, value)
  }
}

/**
 * One timed run of a hook: its start now, its end when it calls done (`callsDone`: not an async
 * hook, which Fastify accepts only without done), settles its promise or throws.
 */
function timedRun (fn: Hook, self: unknown, arity: number, a: unknown, b: unknown, c: unknown, d: unknown, times: HookRuns, site: number, callsDone: boolean): unknown {
  const at = times.begin(site)
  if (at < 0 || !callsDone) return at < 0 ? callHook(fn, self, arity, a, b, c, d) : settled(fn, self, arity, a, b, c, d, times, at)
  // Fastify passes its `done` last to every lifecycle hook (not to the handler).
  const generation = times.generation
  if (arity === 3 && typeof c === 'function') c = timedDone(c as Hook, times, generation, at)
  else if (arity === 4 && typeof d === 'function') d = timedDone(d as Hook, times, generation, at)
  else if (arity === 2 && typeof b === 'function') b = timedDone(b as Hook, times, generation, at)
  return settled(fn, self, arity, a, b, c, d, times, at)
}

/** Calls the hook and ends run `at` when it throws, or when the promise it returns settles. */
function settled (fn: Hook, self: unknown, arity: number, a: unknown, b: unknown, c: unknown, d: unknown, times: HookRuns, at: number): unknown {
  let result: unknown
  try {
    result = callHook(fn, self, arity, a, b, c, d)
  } catch (err) {
    times.finish(at)
    throw err
  }
  // Fastify handles the promise's rejection; this only notes when it settled (the recorder's own function: no closure a run).
  if (isThenable(result)) {
    const end = times.ender(at)
    result.then(end, end)
  }
  return result
}

/**
 * How many arguments Fastify passes to each kind of hook: the request, the reply (not to
 * onRequestAbort), the payload or error (preParsing, preSerialization, onSend, onError), and done.
 */
const ARITY: Readonly<Record<string, 2 | 3 | 4>> = {
  handler: 2,
  onRequestAbort: 2,
  onRequest: 3,
  preValidation: 3,
  preHandler: 3,
  onResponse: 3,
  onTimeout: 3,
  preParsing: 4,
  preSerialization: 4,
  onSend: 4,
  onError: 4
}

/** A run of a hook on a request that is drawn or not drawn yet: timed when the draw keeps it. */
function drawnRun (fn: Hook, self: unknown, arity: number, a: unknown, b: unknown, c: unknown, d: unknown, site: number, callsDone: boolean): unknown {
  const times = timesOf(a as FastifyRequest)
  if (times === null) return callHook(fn, self, arity, a, b, c, d)
  return timedRun(fn, self, arity, a, b, c, d, times, site, callsDone)
}

/**
 * A plain function that runs the hook, timed when the request was drawn. Named parameters, not
 * `arguments`, one function per arity, and the draw (a plain field once made: the request is every
 * hook's first argument) read first: a run of a request left out allocates nothing here and is one
 * call more.
 */
function timedCall (fn: Hook, site: number, arity: number, callsDone: boolean): Hook {
  if (arity === 2) {
    return function timedHook (this: unknown, a: unknown, b: unknown): unknown {
      return (a as FastifyRequest).profilerDrawn === false ? fn.call(this, a, b) : drawnRun(fn, this, 2, a, b, undefined, undefined, site, callsDone)
    }
  }
  if (arity === 3) {
    return function timedHook (this: unknown, a: unknown, b: unknown, c: unknown): unknown {
      return (a as FastifyRequest).profilerDrawn === false ? fn.call(this, a, b, c) : drawnRun(fn, this, 3, a, b, c, undefined, site, callsDone)
    }
  }
  return function timedHook (this: unknown, a: unknown, b: unknown, c: unknown, d: unknown): unknown {
    return (a as FastifyRequest).profilerDrawn === false ? fn.call(this, a, b, c, d) : drawnRun(fn, this, 4, a, b, c, d, site, callsDone)
  }
}

/**
 * The wrapper of an async hook Fastify refuses (one that also takes `done`: Fastify tells it by what
 * it is), an async function as the hook is, so that it is refused the same. The run ends where the
 * wrapper's own await of the hook's promise resumes. A run still open keeps its recorder out of the
 * pool (hook-runs.ts), so an end that comes after the batch left reaches no other request's runs.
 */
function timedAsync (fn: Hook, site: number, arity: number): Hook {
  return async function timedHook (this: unknown, a: unknown, b: unknown, c: unknown, d: unknown): Promise<unknown> {
    const times = (a as FastifyRequest).profilerDrawn === false ? null : timesOf(a as FastifyRequest)
    const at = times === null ? -1 : times.begin(site)
    if (times === null || at < 0) return await callHook(fn, this, arity, a, b, c, d)
    try {
      return await callHook(fn, this, arity, a, b, c, d)
    } finally {
      times.finish(at)
    }
  }
}

/**
 * Whether Fastify refuses an async function as this hook when it is added (an async hook that
 * takes `done`; an onRequestAbort hook that does not take the request alone). A handler's kind is
 * not checked.
 */
function refusedAsync (hook: string, length: number): boolean {
  if (hook === 'handler') return false
  if (hook === 'onRequestAbort') return length !== 1
  return length === ARITY[hook]
}

/**
 * The hook, timed on each run of a request the sample drew; the same length as the hook. A plain
 * function (timedCall), which returns an async hook's own promise and ends its run when it settles
 * (the recorder's ender: no closure a run); an async one only for an async hook Fastify refuses
 * (timedAsync), so that it is refused the same. An async wrapper of every async hook cost ~500
 * bytes a run (its promise, its await's), ~1.5 KB a request of the seed-like mix.
 */
function timed (fn: Hook, site: HookSite): Hook {
  if (wrappers.has(fn)) return fn
  const arity = ARITY[site.hook] ?? 4
  const number = numberSite(site)
  const isAsync = fn instanceof AsyncFunction
  const wrapper = isAsync && refusedAsync(site.hook, fn.length) ? timedAsync(fn, number, arity) : timedCall(fn, number, arity, !isAsync)
  // The wrapper takes the arguments Fastify passes to this kind of hook; it says it takes as many as the hook does.
  Object.defineProperty(wrapper, 'length', { value: fn.length })
  Object.defineProperty(wrapper, 'name', { value: fn.name })
  wrappers.add(wrapper)
  return wrapper
}

/** A route's handler and its own lifecycle hooks (a function or a list in its options), each timed. */
function timeRouteHooks (options: RouteOptions): void {
  const hooks = options as unknown as Record<string, unknown>
  if (typeof options.handler === 'function') options.handler = timed(options.handler as Hook, { hook: 'handler', name: options.handler.name, plugin: 'route' }) as RouteOptions['handler']
  for (const hook of LIFECYCLE_HOOKS) {
    const value = hooks[hook]
    if (typeof value === 'function') hooks[hook] = timed(value as Hook, { hook, name: value.name, plugin: 'route' })
    else if (Array.isArray(value)) hooks[hook] = value.map((fn: unknown) => typeof fn === 'function' ? timed(fn as Hook, { hook, name: fn.name, plugin: 'route' }) : fn)
  }
}

/**
 * Times every lifecycle hook added to `app` (and to every plugin in it) from now on, and every
 * route's own; and each handler. Call it on the root instance before registering any plugin.
 */
export function timeHooks (app: FastifyInstance): void {
  app.decorateRequest('profilerHookTimes', null)
  app.decorateRequest('profilerHookGeneration', 0)
  app.addHook('onRoute', timeRouteHooks)
  const addHook = app.addHook
  // Replaced on the root: encapsulated instances are made from it (Object.create) and inherit it.
  app.addHook = function addTimedHook (this: FastifyInstance, name: string, fn: Hook) {
    if (LIFECYCLE_HOOKS.has(name) && typeof fn === 'function') {
      fn = timed(fn, { hook: name, name: fn.name, plugin: pluginAddingHook(this) })
    } else if (name === 'onRoute' && typeof fn === 'function') {
      // What this onRoute hook adds to a route's hooks (or its handler) is timed too (wrapping twice is a no-op).
      const onRoute = fn
      fn = function timingOnRoute (this: unknown, options: unknown) {
        const result = onRoute.call(this, options)
        timeRouteHooks(options as RouteOptions)
        return result
      }
    }
    return addHook.call(this, name as never, fn as never)
  } as typeof app.addHook
}
