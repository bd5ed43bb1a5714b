// The timeline on the request thread: every hook and handler timed as it runs (hook-timing.ts),
// the runs taken as they are once the request is over. The statements and log lines it draws are
// the db and logs panels' (collect.ts reads their data).
import type { PanelProbe } from '../probe.js'
import { timeHooks, type HookTimes } from './hook-timing.js'

/** Estimated bytes of one number of a run. */
const NUMBER_BYTES = 16

/** A request's hook runs; false: the sample left the request out (a rule kept it), so they were not timed. */
export type TakenHookTimes = HookTimes | false

export const timelineProbe: PanelProbe<TakenHookTimes> = {
  install: timeHooks,
  take (request) {
    // A request the sample left out has at most the runs before the draw: none are kept.
    if (request.profilerSampled === false) return false
    // A reference: this hook's own run, and the onResponse hooks after it, end before the batch leaves.
    return request.profilerHookTimes ?? undefined
  },
  // Two numbers a run, bounded by MAX_HOOK_RUNS; the sites are shared.
  bytes (taken) {
    return taken === false ? 0 : NUMBER_BYTES * taken.times.length
  }
}
