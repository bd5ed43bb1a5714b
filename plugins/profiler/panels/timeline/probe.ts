// The timeline on the request thread: every hook and handler timed as it runs (hook-timing.ts),
// the runs taken as they are once the request is over. The statements and log lines it draws are
// the db and logs panels' (collect.ts reads their data).
import type { PanelProbe } from '../probe.js'
import { runsOf, type HookRuns } from './hook-runs.js'
import type { HookTimes } from './hook-times.js'
import { timeHooks } from './hook-timing.js'

/** Estimated bytes of one number of a run (two a run: its start and end). */
const NUMBER_BYTES = 16

/**
 * A request's hook runs: the request thread's recorder, packed with its batch (run-slab.ts) and
 * rebuilt as HookTimes for the writer; false: the sample left the request out (a rule kept it),
 * so they were not timed.
 */
export type TakenHookTimes = HookRuns | HookTimes | false

export const timelineProbe: PanelProbe<TakenHookTimes> = {
  install: timeHooks,
  take (request) {
    // A request the sample left out has at most the runs before the draw: none are kept.
    if (request.profilerSampled === false) return false
    // A reference: this hook's own run, and the onResponse hooks after it, end before the batch leaves.
    return runsOf(request) ?? undefined
  },
  // Two numbers a run, bounded by MAX_HOOK_RUNS; the sites are shared.
  bytes (taken) {
    if (taken === false) return 0
    return NUMBER_BYTES * ('count' in taken ? 2 * taken.count : taken.times.length)
  }
}
