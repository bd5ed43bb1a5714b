// Runs in the writer thread: the hook runs and the handler's the request thread timed (raw
// numbers), and the db and logs panels' statements and lines, laid on one axis: ms after the
// request started.
import { dbPanel } from '../db/index.js'
import { logsPanel } from '../logs/index.js'
import type { CollectContext } from '../panel.js'
import { HookRuns } from './hook-runs.js'
import { hookTimesOf, type HookTimes } from './hook-times.js'
import type { TakenHookTimes } from './probe.js'
import type { TimelineData, TimelineItem } from './schema.js'
import { roundMs } from '../../units.js'
import { isSpace } from '../whitespace.js'

/** Characters kept of a statement's SQL and of a log line's message (the db and logs panels keep them whole). */
const SNIPPET_CHARS = 160

/** Whether the text is as snippet() would flatten it: no whitespace but single spaces between other characters (most SQL and messages). */
function isFlat (text: string): boolean {
  let space = true // a leading space is not flat
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 32) {
      if (space) return false
      space = true
    } else if (isSpace(c)) {
      return false
    } else {
      space = false
    }
  }
  return !space || text.length === 0
}

const snippet = (text: string): string => {
  const flat = isFlat(text) ? text : text.replace(/\s+/g, ' ').trim()
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat
}

/** The hook runs and the handler's, relative to the request's start (`origin`, on the runs' clock). */
function hookItems (hooks: HookTimes, origin: number, route: string | null, totalMs: number): TimelineItem[] {
  const starts = hooks.sites.map((_site, run) => (hooks.times[2 * run] ?? origin) - origin)
  /** Where the next hook run after `start` began, else the request's end. */
  const nextStart = (start: number): number => {
    let next = totalMs
    for (const other of starts) if (other > start && other < next) next = other
    return next
  }
  return hooks.sites.map((site, run): TimelineItem => {
    const start = starts[run] ?? 0
    const end = hooks.times[2 * run + 1] ?? Number.NaN
    const ended = !Number.isNaN(end)
    // A run that never ended is drawn up to the next; a handler up to the first hook after it at
    // most (a callback-style handler sends its answer before it returns: the sending is not its).
    const until = ended ? (site.hook === 'handler' ? Math.min(end - origin, nextStart(start)) : end - origin) : nextStart(start)
    const durationMs = roundMs(Math.max(0, until - start))
    return site.hook === 'handler'
      ? { kind: 'handler', type: 'handler', name: site.name, plugin: route ?? '', startMs: roundMs(start), durationMs, ended }
      : { kind: 'hook', type: site.hook, name: site.name, plugin: site.plugin, startMs: roundMs(start), durationMs, ended }
  })
}

export function collectTimeline ({ capture, collected }: CollectContext, hooks: TakenHookTimes | undefined): TimelineData {
  const { totalMs, sendStartMs, handlerStartMs } = capture
  const handlerStart = handlerStartMs ?? sendStartMs
  const db = collected(dbPanel)
  const logs = collected(logsPanel)
  const runs = hooks === undefined || hooks === false ? null : hooks instanceof HookRuns ? hookTimesOf(hooks) : hooks
  const items: TimelineItem[] = [
    ...(runs === null ? [] : hookItems(runs, capture.originMs, capture.route, totalMs)),
    ...(db?.statements ?? []).map((statement): TimelineItem =>
      ({ kind: 'statement', type: statement.kind, name: snippet(statement.sql), plugin: '', startMs: statement.startMs, durationMs: statement.durationMs, ended: true }))
  ]
  // By start; at the same start, the longer first (it holds the other).
  items.sort((a, b) => a.startMs - b.startMs || b.durationMs - a.durationMs)
  return {
    totalMs: roundMs(totalMs),
    phases: [
      { name: 'before', startMs: 0, durationMs: roundMs(handlerStart) },
      ...(handlerStartMs === null ? [] : [{ name: 'handler' as const, startMs: roundMs(handlerStartMs), durationMs: roundMs(sendStartMs - handlerStartMs) }]),
      { name: 'sending', startMs: roundMs(sendStartMs), durationMs: roundMs(totalMs - sendStartMs) }
    ],
    items,
    logs: (logs?.lines ?? []).map(line => ({ offsetMs: line.offsetMs, level: line.level, message: snippet(line.message) })),
    hooksTimed: hooks !== false,
    omitted: {
      hooks: runs?.omitted ?? 0,
      statements: db === undefined ? 0 : db.queryCount - db.statements.length,
      logs: logs?.omitted ?? 0
    }
  }
}
