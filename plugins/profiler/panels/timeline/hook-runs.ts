// A request's hook runs as numbers, on the request thread: three slots of one Float64Array a run
// (the site's number, its start, its end), no array or object per run. Sites are numbered once per
// process, when their hook is added. Recorders are pooled: one goes back to the pool once its runs
// have crossed to the writer (run-slab.ts) and none of them is still open, so that a late end can
// never land in another request's runs. A request holds its recorder with the recorder's
// generation at the time, which letting go of it changes: the recorder holds nothing of the
// request (a capture waiting in the queue holds its recorder, and a reference back kept the whole
// request alive: locked-store-bodies), and needs no WeakRef a request to reach it.
import { performance } from 'node:perf_hooks'

/** Hook runs kept per request at most; the rest are counted. */
export const MAX_HOOK_RUNS = 200

/** Where a hook was added: made once when it is added; its runs name it by its number. */
export interface HookSite {
  /** onRequest, preHandler, onSend...; "handler" for the route's handler. */
  hook: string
  /** The function's own name; empty for an anonymous one. */
  name: string
  /** The plugin that added it (Fastify's name for it), or "route" for a route's own hook. */
  plugin: string
}

/** Every site of the process, by its number. */
const sites: HookSite[] = []

/** Numbers a new site (once, when its hook is added). */
export function numberSite (site: HookSite): number {
  return sites.push(site) - 1
}

/** The process's sites, by number: what a batch's runs name. */
export function hookSites (): readonly HookSite[] {
  return sites
}

/** Slots of one run: site, start, end. */
export const RUN_SLOTS = 3
/** Runs a new recorder has room for; it doubles when full, up to MAX_HOOK_RUNS. */
const INITIAL_RUNS = 16
/** Recorders kept for reuse at most (a batch of 500 and the requests in flight). */
const MAX_POOLED = 1024

/** One request's hook runs, on performance.now()'s clock (not yet relative to the request's start). */
export class HookRuns {
  /** RUN_SLOTS a run: site number, start, end (NaN: not ended yet). */
  slots = new Float64Array(RUN_SLOTS * INITIAL_RUNS)
  count = 0
  /** Runs beyond MAX_HOOK_RUNS: counted, not kept. */
  omitted = 0
  /** Runs begun and not ended. */
  open = 0
  /** Changed when its request lets go of it (releaseRuns): its request's runs no longer reach it then. */
  generation = 0
  private readonly enders: Array<() => void> = []

  /** Records a run's start; the run's index, or -1 past the cap. */
  begin (site: number): number {
    if (this.count >= MAX_HOOK_RUNS) {
      this.omitted++
      return -1
    }
    const at = RUN_SLOTS * this.count
    if (at === this.slots.length) this.grow()
    this.slots[at] = site
    this.slots[at + 1] = performance.now()
    this.slots[at + 2] = Number.NaN
    this.open++
    return this.count++
  }

  /** A function that ends a run, made once a run's slot and kept with the recorder (pooled): what a run's promise calls when it settles. */
  ender (run: number): () => void {
    let end = this.enders[run]
    if (end === undefined) {
      end = () => { this.finish(run) }
      this.enders[run] = end
    }
    return end
  }

  /** Records a run's end, the first time only. */
  finish (run: number): void {
    if (run < 0) return
    const at = RUN_SLOTS * run + 2
    if (!Number.isNaN(this.slots[at])) return
    this.slots[at] = performance.now()
    this.open--
  }

  private grow (): void {
    const slots = new Float64Array(2 * this.slots.length)
    slots.set(this.slots)
    this.slots = slots
  }
}

/** What holds a request's recorder (its request), with the recorder's generation when it was acquired. */
export interface RunsOwner { profilerHookTimes: HookRuns | null, profilerHookGeneration: number }

const pool: HookRuns[] = []

/** A recorder for a new request (`owner`): a pooled one when there is one. */
export function acquireRuns (owner: RunsOwner): HookRuns {
  const runs = pool.pop() ?? new HookRuns()
  owner.profilerHookTimes = runs
  owner.profilerHookGeneration = runs.generation
  return runs
}

/** The request's recorder; null before its first run and once it has let go of it (its runs gone with their batch). */
export function runsOf (owner: RunsOwner): HookRuns | null {
  const runs = owner.profilerHookTimes
  return runs !== null && runs.generation === owner.profilerHookGeneration ? runs : null
}

/** Back to the pool once its runs have been copied: only when none is open (a late end would write into a reused one). */
export function releaseRuns (runs: HookRuns): void {
  // Its request no longer reaches it (runsOf), nor do its done functions (hook-timing.ts).
  runs.generation++
  if (runs.open !== 0 || pool.length >= MAX_POOLED) return
  runs.count = 0
  runs.omitted = 0
  pool.push(runs)
}
