// The timeline, built when a profile is read (design B3): the writer thread stores only the hook
// runs as numbers, their sites once each, and when sending began (recordTimeline); reading lays
// them, the db panel's statements and the logs panel's lines on one axis in ms after the request
// started, with the performance panel's phases (timelineOf). What those panels hold is stored once.
import { dbPanel } from '../db/index.js'
import type { DbData } from '../db/schema.js'
import { logsPanel } from '../logs/index.js'
import type { CollectContext, PanelData, PanelRowValues, ReadPanels } from '../panel.js'
import { performancePanel } from '../performance.js'
import { HookRuns, type HookSite } from './hook-runs.js'
import { hookTimesOf, type HookTimes } from './hook-times.js'
import type { TakenHookTimes } from './probe.js'
import { MICROSECOND_RUNS_FORM, PROCESS_SITES, RUNS_FORM } from './stored-form-constants.js'
import type { StoredRuns, StoredSite, StoredSiteRuns, TimelineData, TimelineItem } from './schema.js'
import { snippet } from './snippet.js'
import { roundMs } from '../../units.js'

/** A profile's own sites (StoredRuns): each once, in the order its runs first name them. */
function ownSites (): { sites: StoredSite[], placeOf: (site: HookSite) => number } {
  const places = new Map<HookSite, number>()
  const sites: StoredSite[] = []
  return {
    sites,
    placeOf (site) {
      let place = places.get(site)
      if (place === undefined) {
        place = sites.push([site.hook, site.name, site.plugin]) - 1
        places.set(site, place)
      }
      return place
    }
  }
}

/** ms to the µs (roundMs) as whole µs: MICROSECOND_RUNS_FORM. */
const toMicroseconds = (ms: number): number => Math.round(ms * 1000)

/**
 * The hook runs, relative to the request's start (`origin`, on the runs' clock), as StoredRuns holds
 * them (`round`: roundMs), or as MICROSECOND_RUNS_FORM does (toMicroseconds), their sites numbered by `placeOf`.
 */
function hookRuns (hooks: HookTimes, origin: number, totalMs: number, placeOf: (site: HookSite) => number, round: (ms: number) => number = roundMs): number[] {
  const starts = hooks.sites.map((_site, run) => (hooks.times[2 * run] ?? origin) - origin)
  /** Where the next hook run after `start` began, else the request's end. */
  const nextStart = (start: number): number => {
    let next = totalMs
    for (const other of starts) if (other > start && other < next) next = other
    return next
  }
  const runs: number[] = []
  hooks.sites.forEach((site, run) => {
    const start = starts[run] ?? 0
    const end = hooks.times[2 * run + 1] ?? Number.NaN
    const ended = !Number.isNaN(end)
    // A run that never ended is drawn up to the next; a handler up to the first hook after it at
    // most (a callback-style handler sends its answer before it returns: the sending is not its).
    const until = ended ? (site.hook === 'handler' ? Math.min(end - origin, nextStart(start)) : end - origin) : nextStart(start)
    const place = placeOf(site)
    runs.push(ended ? place : -1 - place, round(start), round(Math.max(0, until - start)))
  })
  return runs
}

/**
 * In the writer thread: what the timeline stores of a request, its own inputs only; its sites
 * named by their place in the process's (context.sitePlace), else stored with it.
 */
export function recordTimeline ({ capture, sitePlace }: CollectContext, hooks: TakenHookTimes | undefined): StoredRuns | StoredSiteRuns {
  const times = hooks === undefined || hooks === false ? null : hooks instanceof HookRuns ? hookTimesOf(hooks) : hooks
  const rest = { sendMs: roundMs(capture.sendStartMs), omittedHooks: times?.omitted ?? 0, hooksTimed: hooks !== false }
  if (sitePlace !== undefined) return { v: MICROSECOND_RUNS_FORM, runs: times === null ? [] : hookRuns(times, capture.originMs, capture.totalMs, sitePlace, toMicroseconds), ...rest }
  const own = ownSites()
  const runs = times === null ? [] : hookRuns(times, capture.originMs, capture.totalMs, own.placeOf)
  return { v: RUNS_FORM, sites: own.sites, runs, ...rest }
}

/** The stored runs with their starts and durations in ms (MICROSECOND_RUNS_FORM's in µs: the same doubles roundMs gave). */
export function runsInMs (stored: StoredRuns | StoredSiteRuns): readonly number[] {
  if (stored.v !== MICROSECOND_RUNS_FORM) return stored.runs
  return stored.runs.map((value, at) => at % 3 === 0 ? value : value / 1000)
}

/** The sites the stored runs name: their own, or (timeline v 3 and 4) their process's. */
function sitesOf (stored: StoredRuns | StoredSiteRuns, processSites: readonly StoredSite[] | undefined): readonly StoredSite[] {
  return 'sites' in stored ? stored.sites : processSites ?? []
}

/** The items of the stored runs, their sites named in `sites`: the handler's plugin is its route. */
function runItems (sites: readonly StoredSite[], runs: readonly number[], route: string | null): TimelineItem[] {
  const items: TimelineItem[] = []
  for (let at = 0; at + 2 < runs.length; at += 3) {
    const named = runs[at] as number
    const ended = named >= 0
    // A site its process row lacks (never, while retention keeps the row with its profiles): unnamed.
    const [hook, name, plugin] = sites[ended ? named : -1 - named] ?? ['', '', '']
    const startMs = runs[at + 1] as number
    const durationMs = runs[at + 2] as number
    items.push(hook === 'handler'
      ? { kind: 'handler', type: 'handler', name, plugin: route ?? '', startMs, durationMs, ended }
      : { kind: 'hook', type: hook, name, plugin, startMs, durationMs, ended })
  }
  return items
}

/** By start; at the same start, the longer first (it holds the other). */
function byStart (a: TimelineItem, b: TimelineItem): number {
  return a.startMs - b.startMs || b.durationMs - a.durationMs
}

/**
 * The hook and handler items of a stored timeline, in the timeline's order (its items without the
 * statements: the sort is stable), without laying out the rest (the OTLP export's spans).
 */
export function hookItemsOf (stored: StoredRuns | StoredSiteRuns, route: string | null, processSites: readonly StoredSite[] | undefined): TimelineItem[] {
  const items = runItems(sitesOf(stored, processSites), runsInMs(stored), route)
  // Stored in the order they ran, most often the timeline's already: sorted only when they are not.
  for (let at = 1; at < items.length; at++) {
    if (byStart(items[at - 1] as TimelineItem, items[at] as TimelineItem) > 0) return items.sort(byStart)
  }
  return items
}

/** The phases: the performance panel's, laid on the axis (when sending began is the timeline's own). */
function phasesOf (performance: PanelData<typeof performancePanel> | undefined, sendMs: number, totalMs: number): TimelineData['phases'] {
  const beforeMs = performance?.beforeHandlerMs ?? sendMs
  const handlerMs = performance?.handlerMs ?? null
  return [
    { name: 'before', startMs: 0, durationMs: beforeMs },
    ...(handlerMs === null ? [] : [{ name: 'handler' as const, startMs: beforeMs, durationMs: handlerMs }]),
    { name: 'sending', startMs: sendMs, durationMs: performance?.sendingMs ?? roundMs(totalMs - sendMs) }
  ]
}

/**
 * When a profile is read: the timeline of its stored runs, its row and the panels read before it
 * (with its process's sites, when the runs name places in them: PROCESS_SITES).
 */
export function timelineOf (stored: StoredRuns | StoredSiteRuns, row: PanelRowValues, read: ReadPanels): TimelineData {
  const db = read[dbPanel.name] as DbData | undefined
  const logs = read[logsPanel.name] as PanelData<typeof logsPanel> | undefined
  const items: TimelineItem[] = [
    ...runItems(sitesOf(stored, read[PROCESS_SITES] as StoredSite[] | undefined), runsInMs(stored), row.route),
    ...(db?.statements ?? []).map((statement): TimelineItem =>
      ({ kind: 'statement', type: statement.kind, name: snippet(statement.sql), plugin: '', startMs: statement.startMs, durationMs: statement.durationMs, ended: true }))
  ]
  items.sort(byStart)
  return {
    totalMs: row.durationMs,
    phases: phasesOf(read[performancePanel.name] as PanelData<typeof performancePanel> | undefined, stored.sendMs, row.durationMs),
    items,
    logs: (logs?.lines ?? []).map(line => ({ offsetMs: line.offsetMs, level: line.level, message: snippet(line.message) })),
    hooksTimed: stored.hooksTimed,
    omitted: {
      hooks: stored.omittedHooks,
      statements: db === undefined ? 0 : db.queryCount - db.statements.length,
      logs: logs?.omitted ?? 0
    }
  }
}
