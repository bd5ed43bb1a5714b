// A batch's hook runs as they cross to the writer thread: every capture's runs copied into one
// Float64Array, whose buffer is transferred (not cloned), the capture's timeline slot holding the
// offset of its runs there, and the process's sites once a batch. The writer rebuilds each
// capture's HookTimes from them (unpackRuns), as the structured clone of per-request arrays gave
// them before: a batch pays one buffer and the sites, not arrays, numbers and references a run.
import type { QueuedProfile, RequestCapture } from '../../capture/capture.js'
import { takenIndex } from '../probes.js'
import { HookRuns, hookSites, releaseRuns, RUN_SLOTS, type HookSite } from './hook-runs.js'
import { copyRuns, hookTimesAt, RUNS_HEADER, slotsAt, slotsOf } from './hook-times.js'
import { timelinePanel } from './index.js'

/** The hook runs of a batch, as the write request carries them. */
export interface BatchRuns {
  slab: Float64Array<ArrayBuffer>
  /** The sites the runs name, by their number in the slab. */
  sites: readonly HookSite[]
}

/** A batch's runs packed for the writer, and their recorders until the batch is answered. */
export class PackedRuns {
  private constructor (
    readonly runs: BatchRuns,
    private readonly captures: RequestCapture[],
    private readonly recorders: HookRuns[]
  ) {}

  /** Packs the runs of the batch's captures (their timeline slots now hold offsets); null when none has any. */
  static of (profiles: readonly QueuedProfile[]): PackedRuns | null {
    const at = takenIndex(timelinePanel)
    const captures: RequestCapture[] = []
    const recorders: HookRuns[] = []
    let slots = 0
    for (const profile of profiles) {
      if (!('kind' in profile)) continue
      const runs = profile.taken?.[at]
      if (!(runs instanceof HookRuns)) continue
      captures.push(profile)
      recorders.push(runs)
      slots += slotsOf(runs)
    }
    if (captures.length === 0) return null
    const slab = new Float64Array(slots)
    let offset = 0
    for (let i = 0; i < captures.length; i++) {
      const taken = (captures[i] as RequestCapture).taken as unknown[]
      taken[at] = offset
      offset = copyRuns(recorders[i] as HookRuns, slab, offset)
    }
    return new PackedRuns({ slab, sites: usedSites(slab) }, captures, recorders)
  }

  /**
   * The batch was answered: the captures to be tried again (`retried`) get their recorders back
   * (packed again with their next batch); the others' recorders go back to the pool.
   */
  settle (retried: (capture: RequestCapture) => boolean): void {
    const at = takenIndex(timelinePanel)
    for (let i = 0; i < this.captures.length; i++) {
      const capture = this.captures[i] as RequestCapture
      const recorder = this.recorders[i] as HookRuns
      if (retried(capture)) (capture.taken as unknown[])[at] = recorder
      else releaseRuns(recorder)
    }
  }
}

/**
 * The sites the slab's runs name, their numbers in it rewritten to places in the list: a batch
 * carries the sites it uses (a request uses ~15 of the process's ~130: a batch of one capture
 * cloned them all, ~6 KB), not the whole table.
 */
function usedSites (slab: Float64Array): HookSite[] {
  const table = hookSites()
  const place = new Int32Array(table.length).fill(-1)
  const used: HookSite[] = []
  for (let offset = 0; offset < slab.length; offset += slotsAt(slab, offset)) {
    const end = offset + slotsAt(slab, offset)
    for (let at = offset + RUNS_HEADER; at < end; at += RUN_SLOTS) {
      const site = slab[at] as number
      if (place[site] === -1) place[site] = used.push(table[site] as HookSite) - 1
      slab[at] = place[site] as number
    }
  }
  return used
}

/** In the writer: each capture's timeline slot rebuilt from its batch's runs (an offset into them). */
export function unpackRuns (batch: readonly QueuedProfile[], runs: BatchRuns | undefined): void {
  if (runs === undefined) return
  const at = takenIndex(timelinePanel)
  for (const profile of batch) {
    if (!('kind' in profile) || profile.taken === undefined) continue
    const offset = profile.taken[at]
    if (typeof offset === 'number') profile.taken[at] = hookTimesAt(runs.slab, offset, runs.sites)
  }
}
