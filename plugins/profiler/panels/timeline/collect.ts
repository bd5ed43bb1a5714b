// Runs in the writer thread: the hook runs, handler, statements and log lines the request thread
// captured (raw numbers and references), laid on one axis: ms after the request started.
import { format } from 'node:util'
import { levels } from 'pino'
import type { Redactor } from '../../../../lib/redact.js'
import type { HookTimes } from '../../collect/hook-timing.js'
import type { CollectContext } from '../panel.js'
import type { TimelineData, TimelineItem, TimelineTick } from './schema.js'

/** Characters kept of a statement's SQL and of a log line's message (the db and logs panels keep them whole). */
const SNIPPET_CHARS = 160

const round = (ms: number): number => Math.round(ms * 1000) / 1000

const snippet = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat
}

/** The hook runs and the handler's, relative to the request's start. */
function hookItems (hooks: HookTimes, route: string | null, totalMs: number): TimelineItem[] {
  // Without the reply's start (the first timed hook had no reply), the first run starts the axis.
  const origin = Number.isNaN(hooks.originMs) ? hooks.times[0] ?? 0 : hooks.originMs
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
    const durationMs = round(Math.max(0, until - start))
    return site.hook === 'handler'
      ? { kind: 'handler', type: 'handler', name: site.name, plugin: route ?? '', startMs: round(start), durationMs, ended }
      : { kind: 'hook', type: site.hook, name: site.name, plugin: site.plugin, startMs: round(start), durationMs, ended }
  })
}

function levelName (level: number): string {
  return levels.labels[level] ?? String(level)
}

function logTicks ({ capture, redactor }: { capture: CollectContext['capture'], redactor: Redactor }): TimelineTick[] {
  return (capture.logs?.lines ?? []).map(line => {
    const text = line.message === undefined ? '' : line.args.length === 0 ? line.message : format(line.message, ...line.args)
    return { offsetMs: round(line.offsetMs), level: levelName(line.level), message: snippet(redactor.text(text)) }
  })
}

export function collectTimeline ({ capture, redactor }: CollectContext): TimelineData {
  const { totalMs, sendStartMs, handlerStartMs } = capture
  const handlerStart = handlerStartMs ?? sendStartMs
  const statements = capture.statements
  const items: TimelineItem[] = [
    ...(capture.hooks === undefined ? [] : hookItems(capture.hooks, capture.route, totalMs)),
    ...(statements?.statements ?? []).map((statement): TimelineItem => {
      const sql = redactor.text(statement.sql)
      return { kind: 'statement', type: /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? '', name: snippet(sql), plugin: '', startMs: round(statement.startMs), durationMs: round(statement.durationMs), ended: true }
    })
  ]
  // By start; at the same start, the longer first (it holds the other).
  items.sort((a, b) => a.startMs - b.startMs || b.durationMs - a.durationMs)
  return {
    totalMs: round(totalMs),
    phases: [
      { name: 'before', startMs: 0, durationMs: round(handlerStart) },
      ...(handlerStartMs === null ? [] : [{ name: 'handler' as const, startMs: round(handlerStartMs), durationMs: round(sendStartMs - handlerStartMs) }]),
      { name: 'sending', startMs: round(sendStartMs), durationMs: round(totalMs - sendStartMs) }
    ],
    items,
    logs: logTicks({ capture, redactor }),
    hooksTimed: capture.hooksTimed !== false,
    omitted: {
      hooks: capture.hooks?.omitted ?? 0,
      statements: statements === undefined ? 0 : statements.count - statements.statements.length,
      logs: capture.logs?.omitted ?? 0
    }
  }
}
