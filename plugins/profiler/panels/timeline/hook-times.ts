// A request's hook runs as the writer thread reads them (collect.ts): a site object and two times
// a run, rebuilt from the numbers the request thread recorded (hook-runs.ts) and its batch carried
// (run-slab.ts).
import { hookSites, RUN_SLOTS, type HookRuns, type HookSite } from './hook-runs.js'

/** A request's hook runs and its handler's, on performance.now()'s clock; not yet relative to the request's start. */
export interface HookTimes {
  /** The site of each run, in the order they began (one object a site, shared by its runs). */
  sites: HookSite[]
  /** Two numbers per run: its start and its end (NaN: it had not ended when the request was captured). */
  times: number[]
  /** Runs beyond MAX_HOOK_RUNS: counted, not kept. */
  omitted: number
}

/** Slots before a request's runs in a batch's slab: its count of runs, and of omitted ones. */
export const RUNS_HEADER = 2

/** The HookTimes of the runs at `offset` of a batch's slab (`count`, `omitted`, then RUN_SLOTS a run), their sites numbered in `sites`. */
export function hookTimesAt (slab: Float64Array, offset: number, sites: readonly HookSite[]): HookTimes {
  const count = slab[offset] ?? 0
  const times: HookTimes = { sites: [], times: [], omitted: slab[offset + 1] ?? 0 }
  for (let run = 0, at = offset + RUNS_HEADER; run < count; run++, at += RUN_SLOTS) {
    times.sites.push(sites[slab[at] ?? 0] as HookSite)
    times.times.push(slab[at + 1] ?? Number.NaN, slab[at + 2] ?? Number.NaN)
  }
  return times
}

/** Slots the runs at `offset` of a batch's slab take. */
export function slotsAt (slab: Float64Array, offset: number): number {
  return RUNS_HEADER + RUN_SLOTS * (slab[offset] ?? 0)
}

/** Slots `runs` takes in a batch's slab. */
export function slotsOf (runs: HookRuns): number {
  return RUNS_HEADER + RUN_SLOTS * runs.count
}

/** Copies `runs` into `slab` at `offset` (as hookTimesAt reads them); the offset after them. */
export function copyRuns (runs: HookRuns, slab: Float64Array, offset: number): number {
  slab[offset] = runs.count
  slab[offset + 1] = runs.omitted
  const length = RUN_SLOTS * runs.count
  const from = runs.slots
  const to = offset + RUNS_HEADER
  for (let i = 0; i < length; i++) slab[to + i] = from[i] as number
  return to + length
}

/** A recorder's runs as HookTimes, in the thread that recorded them (a capture shaped where it was taken). */
export function hookTimesOf (runs: HookRuns): HookTimes {
  const slab = new Float64Array(slotsOf(runs))
  copyRuns(runs, slab, 0)
  return hookTimesAt(slab, 0, hookSites())
}
