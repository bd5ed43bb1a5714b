// Which plugin adds a hook, for the timeline: the plugin whose code is running on the instance the
// hook is added to. Fastify's own name for an instance (`pluginName`, a chain of names) cannot say:
// a plugin wrapped by fastify-plugin shares its parent's instance and appends its name to that
// chain for good, so a hook added after it by another plugin on the same instance (@fastify/view
// awaits its nested @fastify/view/cache plugin, then adds its onRequest hook), or by the app on
// the root, would be named after the last plugin loaded.
//
// So each plugin that shares its parent's instance is wrapped: while it runs, and until it has
// finished loading (its promise settled, its `done` called, or it returned without taking `done`),
// its name is on top of its instance's stack. Avvio loads one plugin at a time and a nested one
// ends before its parent goes on, so the stacks nest. The name is Fastify's: the chain's last,
// read when the plugin begins.
import type { FastifyInstance } from 'fastify'
import { isThenable } from './thenable.js'

type Done = (err?: Error) => void
type Plugin = (this: unknown, instance: FastifyInstance, opts: unknown, done: Done) => unknown

/** The names of the plugins loading on each instance, innermost last. */
const running = new WeakMap<FastifyInstance, string[]>()

/** Fastify's chain of names for an instance ("fastify -> compress -> views"), as a list. */
const chainOf = (instance: FastifyInstance): string[] => (instance.pluginName ?? '').split(' -> ')

/** Own properties Fastify and avvio read from a plugin (fastify-plugin's symbols, name, length) are the wrapper's too. */
function copyIdentity (from: Plugin, to: Plugin): void {
  const descriptors = Object.getOwnPropertyDescriptors(from) as Record<PropertyKey, PropertyDescriptor>
  for (const key of Reflect.ownKeys(descriptors)) {
    if (key !== 'prototype' && key !== 'arguments' && key !== 'caller') Object.defineProperty(to, key, descriptors[key as string] as PropertyDescriptor)
  }
  // Fastify refuses an async plugin that also takes `done`, by its constructor's name.
  if (from.constructor !== Function) Object.defineProperty(to, 'constructor', { value: from.constructor })
}

function tracked (plugin: Plugin): Plugin {
  const wrapper = function trackedPlugin (this: unknown, instance: FastifyInstance, opts: unknown, done: Done): unknown {
    let stack = running.get(instance)
    if (stack === undefined) running.set(instance, stack = [])
    const depth = stack.push(chainOf(instance).at(-1) ?? '')
    let loaded = false
    const end = (): void => {
      if (loaded) return
      loaded = true
      // Whatever a nested plugin that never ended left above this one goes with it.
      stack.length = depth - 1
    }
    let result: unknown
    try {
      result = plugin.call(this, instance, opts, (err?: Error) => { end(); done(err) })
    } catch (err) {
      end()
      throw err
    }
    if (isThenable(result)) result.then(end, end)
    // Avvio ends a plugin that does not take `done` when it returns (and calls done() itself).
    else if (plugin.length < 3) end()
    return result
  } as Plugin
  copyIdentity(plugin, wrapper)
  return wrapper
}

/** fastify-plugin's mark of a plugin that shares its parent's instance (Fastify skips its encapsulation). */
const SKIP_OVERRIDE = Symbol.for('skip-override')

/**
 * From now on, every plugin registered on `app` or in it (they inherit `register`) that shares its
 * parent's instance is tracked. An encapsulated plugin is not wrapped: its instance is its own,
 * named after it first in Fastify's chain, which is what a hook added to it outside any nested
 * plugin's loading is named after. Call it on the root instance before registering any plugin. A
 * plugin given as a promise (a dynamic import) is not tracked: its hooks are named by the chain.
 */
export function trackRunningPlugins (app: FastifyInstance): void {
  const register = app.register as unknown as (this: FastifyInstance, plugin: unknown, opts?: unknown) => FastifyInstance
  app.register = function trackingRegister (this: FastifyInstance, plugin: unknown, opts?: unknown) {
    // A module's namespace (or a TypeScript-compiled module) stands for its default export, as avvio reads it.
    const fn = typeof plugin === 'function'
      ? plugin
      : typeof plugin === 'object' && plugin !== null && typeof (plugin as { default?: unknown }).default === 'function' ? (plugin as { default: unknown }).default : null
    const shared = fn !== null && (fn as { [SKIP_OVERRIDE]?: unknown })[SKIP_OVERRIDE] === true
    return register.call(this, shared ? tracked(fn as Plugin) : plugin, opts)
  } as unknown as typeof app.register
}

/**
 * The plugin adding a hook to `instance` now: the innermost one loading on it, or else the one
 * that made the instance (the first of its chain: "fastify" for the root).
 */
export function pluginAddingHook (instance: FastifyInstance): string {
  const stack = running.get(instance)
  if (stack !== undefined && stack.length > 0) return stack[stack.length - 1] as string
  return chainOf(instance)[0] ?? ''
}
