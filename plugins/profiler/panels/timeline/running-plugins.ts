// Which plugin adds a hook, for the timeline: the plugin whose code is running on the instance the
// hook is added to. Fastify's own name for an instance (`pluginName`, a chain of names) cannot say:
// a plugin wrapped by fastify-plugin shares its parent's instance and appends its name to that
// chain for good, so a hook added after it by another plugin on the same instance (@fastify/view
// awaits its nested @fastify/view/cache plugin, then adds its onRequest hook), or by the app on
// the root, would be named after the last plugin loaded.
//
// So each plugin that shares its parent's instance is wrapped: while its code runs (until its
// promise settles, or until it has both returned and called `done`), its name is on top of its
// instance's stack; so is it while an `after()` callback it registered runs. Avvio loads one
// plugin at a time and a nested one ends before its parent goes on, so the stacks nest. The name
// is Fastify's: the chain's last, read when the plugin begins. Fastify's and avvio's own names for
// the plugin stay the original's (its properties, its source text, its CommonJS module's path).
import { createRequire } from 'node:module'
import type { FastifyInstance } from 'fastify'
import { isThenable } from './thenable.js'

type Done = (err?: Error) => void
type Plugin = (this: unknown, instance: FastifyInstance, opts: unknown, done: Done) => unknown
type Callback = (this: unknown, ...args: unknown[]) => unknown

/** The names of the plugins whose code runs on each instance, innermost last. */
const running = new WeakMap<FastifyInstance, string[]>()

/** fastify-plugin's mark of a plugin that shares its parent's instance (Fastify skips its encapsulation). */
const SKIP_OVERRIDE = Symbol.for('skip-override')
/** The name fastify-plugin gives a plugin, which Fastify reads first. */
const DISPLAY_NAME = Symbol.for('fastify.display-name')

/** Fastify's chain of names for an instance ("fastify -> compress -> views"), as a list. */
const chainOf = (instance: FastifyInstance): string[] => (instance.pluginName ?? '').split(' -> ')

/** Node's one cache of loaded CommonJS modules. */
const { cache } = createRequire(import.meta.url)

/** The CommonJS module that exports `fn`, by which Fastify names a plugin that has no display name. */
function moduleExporting (fn: Plugin): string | undefined {
  return Object.keys(cache).find(key => cache[key]?.exports === fn)
}

/**
 * What Fastify and avvio read of a plugin is the wrapper's too: its own properties (fastify-plugin's
 * symbols, name, length), its kind (Fastify refuses an async plugin that also takes `done`, by its
 * constructor's name), its source text (a nameless plugin is named by its first lines) and the path
 * of the CommonJS module that exports it (Fastify's name for it, when nothing else names it).
 */
function copyIdentity (from: Plugin, to: Plugin): void {
  const descriptors = Object.getOwnPropertyDescriptors(from) as Record<PropertyKey, PropertyDescriptor>
  for (const key of Reflect.ownKeys(descriptors)) {
    if (key !== 'prototype' && key !== 'arguments' && key !== 'caller') Object.defineProperty(to, key, descriptors[key as string] as PropertyDescriptor)
  }
  // fastify-plugin's `default` is the plugin itself: avvio loads a resolved module by it.
  if ((to as { default?: unknown }).default === from) Object.defineProperty(to, 'default', { value: to, configurable: true, writable: true })
  if (from.constructor !== Function) Object.defineProperty(to, 'constructor', { value: from.constructor })
  Object.defineProperty(to, 'toString', { value: () => from.toString(), configurable: true, writable: true })
  if ((from as { [DISPLAY_NAME]?: unknown })[DISPLAY_NAME] === undefined) {
    const path = moduleExporting(from)
    if (path !== undefined) Object.defineProperty(to, DISPLAY_NAME, { value: path, configurable: true, writable: true })
  }
}

/** Puts `name` on top of the instance's stack; the returned function takes it (and anything left above it) off, once. */
function enter (instance: FastifyInstance, name: string): () => void {
  let stack = running.get(instance)
  if (stack === undefined) running.set(instance, stack = [])
  const depth = stack.push(name)
  let left = false
  return () => {
    if (left) return
    left = true
    stack.length = depth - 1
  }
}

function tracked (plugin: Plugin): Plugin {
  const wrapper = function trackedPlugin (this: unknown, instance: FastifyInstance, opts: unknown, done: Done): unknown {
    const leave = enter(instance, chainOf(instance).at(-1) ?? '')
    // A plugin that takes `done` has run its code once it has both returned and called it.
    let returned = false
    let called = false
    let result: unknown
    try {
      result = plugin.call(this, instance, opts, (err?: Error) => {
        called = true
        if (returned) leave()
        done(err)
      })
    } catch (err) {
      leave()
      throw err
    }
    returned = true
    if (isThenable(result)) result.then(leave, leave)
    // Avvio ends a plugin that does not take `done` when it returns.
    else if (called || plugin.length < 3) leave()
    return result
  } as Plugin
  copyIdentity(plugin, wrapper)
  return wrapper
}

/** A plugin that shares its parent's instance, wrapped; anything else as it is. */
function trackedIfShared (plugin: unknown): unknown {
  // A module's namespace (or a TypeScript-compiled module) stands for its default export, as avvio reads it.
  const fn = typeof plugin === 'function'
    ? plugin
    : typeof plugin === 'object' && plugin !== null && typeof (plugin as { default?: unknown }).default === 'function' ? (plugin as { default: unknown }).default : null
  // Fastify's own test of the mark (any truthy value).
  return fn !== null && Boolean((fn as { [SKIP_OVERRIDE]?: unknown })[SKIP_OVERRIDE]) ? tracked(fn as Plugin) : plugin
}

/**
 * A promise of a module (a dynamic import), tracked once it resolves: a thenable that hands avvio
 * the resolved plugin in the same turn the promise would have (no extra promise, whose one more
 * microtask could reorder loading), named as the promise is.
 */
function trackedOnceResolved (promise: PromiseLike<unknown>): PromiseLike<unknown> {
  return {
    then (resolved, rejected) {
      return promise.then(value => resolved === undefined || resolved === null ? value : resolved(trackedIfShared(value)) as never, rejected)
    },
    toString: () => String(promise)
  } as PromiseLike<unknown>
}

/** `callback`, run under `name` on the instance; its `length` kept (avvio reads an after() callback's). */
function runningAs (instance: FastifyInstance, name: string, callback: Callback): Callback {
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    const leave = enter(instance, name)
    let result: unknown
    try {
      result = callback.apply(this, args)
    } catch (err) {
      leave()
      throw err
    }
    if (isThenable(result)) result.then(leave, leave)
    else leave()
    return result
  }
  Object.defineProperty(wrapper, 'length', { value: callback.length })
  Object.defineProperty(wrapper, 'name', { value: callback.name })
  return wrapper
}

/**
 * From now on, every plugin registered on `app` or in it (they inherit `register` and `after`) that
 * shares its parent's instance is tracked, and so are the after() callbacks their code registers.
 * An encapsulated plugin is not wrapped: its instance is its own, named after it first in Fastify's
 * chain, which is what a hook added to it outside a nested plugin's code is named after. Call it
 * on the root instance before registering any plugin.
 */
export function trackRunningPlugins (app: FastifyInstance): void {
  const register = app.register as unknown as (this: FastifyInstance, plugin: unknown, opts?: unknown) => FastifyInstance
  app.register = function trackingRegister (this: FastifyInstance, plugin: unknown, opts?: unknown) {
    return register.call(this, isThenable(plugin) ? trackedOnceResolved(plugin) : trackedIfShared(plugin), opts)
  } as unknown as typeof app.register
  const after = app.after as unknown as (this: FastifyInstance, callback?: unknown) => unknown
  app.after = function trackingAfter (this: FastifyInstance, callback?: unknown) {
    return after.call(this, typeof callback === 'function' ? underRunningPlugin(this, callback as Callback) : callback)
  } as unknown as typeof app.after
}

/**
 * A callback that a plugin's code registers on `instance` now (an after() callback, an onRoute
 * hook), made to run under that plugin's name: the hooks it adds are the plugin's. As it is when no
 * tracked plugin's code runs on the instance.
 */
export function underRunningPlugin<F extends Callback> (instance: FastifyInstance, callback: F): F {
  const name = running.get(instance)?.at(-1)
  return name === undefined ? callback : runningAs(instance, name, callback) as F
}

/**
 * The plugin adding a hook to `instance` now: the innermost one whose code runs on it, or else the
 * one that made the instance (the first of its chain: "fastify" for the root).
 */
export function pluginAddingHook (instance: FastifyInstance): string {
  return running.get(instance)?.at(-1) ?? chainOf(instance)[0] ?? ''
}
