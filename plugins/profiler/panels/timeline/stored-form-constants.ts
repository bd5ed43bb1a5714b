// The values the timeline's stored forms (schema.ts) name, apart from its TypeBox schema: the
// profiler's threads read and write those forms and load no TypeBox.

/** The version of StoredRuns (the forms before it have no `v`). */
export const RUNS_FORM = 2

/**
 * Where the per-process record (writer/process-panels.ts) keeps its process's sites, in the order
 * the writer first met them: a list that only grows, so a place in it names the same site for
 * every profile that names a row holding it. Read back among the panels, dropped once they are built.
 */
export const PROCESS_SITES = 'timelineSites'

/**
 * The version of StoredSiteRuns whose runs' starts and durations are whole microseconds (from 29
 * November 2026, issue 38): JSON writes an integer in a third of the time it takes for the same
 * value in ms (0.804 and 804 are the same double read back: roundMs keeps ms to the µs).
 */
export const MICROSECOND_RUNS_FORM = 4
