// The timeline as the writer thread collected it before it was built when read (29 November 2026,
// panels/timeline/collect.ts then): kept as the reference the stored form's property test compares
// with (test/profiler/timeline-stored.property.test.ts). Given the db, logs and performance panels'
// data, the capture's times and its hook runs.
import type { RequestCapture } from '../../plugins/profiler/capture/capture.js'
import type { DbData } from '../../plugins/profiler/panels/db/schema.js'
import type { HookTimes } from '../../plugins/profiler/panels/timeline/hook-times.js'
import type { TimelineData, TimelineItem } from '../../plugins/profiler/panels/timeline/schema.js'
import { snippet } from '../../plugins/profiler/panels/timeline/snippet.js'
import { roundMs } from '../../plugins/profiler/units.js'

type Times = Pick<RequestCapture, 'totalMs' | 'sendStartMs' | 'handlerStartMs' | 'originMs' | 'route'>
interface Logs { lines: Array<{ offsetMs: number, level: string, message: string }>, omitted: number }

function hookItems (hooks: HookTimes, origin: number, route: string | null, totalMs: number): TimelineItem[] {
  const starts = hooks.sites.map((_site, run) => (hooks.times[2 * run] ?? origin) - origin)
  const nextStart = (start: number): number => {
    let next = totalMs
    for (const other of starts) if (other > start && other < next) next = other
    return next
  }
  return hooks.sites.map((site, run): TimelineItem => {
    const start = starts[run] ?? 0
    const end = hooks.times[2 * run + 1] ?? Number.NaN
    const ended = !Number.isNaN(end)
    const until = ended ? (site.hook === 'handler' ? Math.min(end - origin, nextStart(start)) : end - origin) : nextStart(start)
    const durationMs = roundMs(Math.max(0, until - start))
    return site.hook === 'handler'
      ? { kind: 'handler', type: 'handler', name: site.name, plugin: route ?? '', startMs: roundMs(start), durationMs, ended }
      : { kind: 'hook', type: site.hook, name: site.name, plugin: site.plugin, startMs: roundMs(start), durationMs, ended }
  })
}

/** The timeline as collected before; `hooks` false: not timed (the sample), undefined: none taken. */
export function timelineBefore (capture: Times, hooks: HookTimes | false | undefined, db: DbData | undefined, logs: Logs | undefined): TimelineData {
  const { totalMs, sendStartMs, handlerStartMs } = capture
  const handlerStart = handlerStartMs ?? sendStartMs
  const runs = hooks === undefined || hooks === false ? null : hooks
  const items: TimelineItem[] = [
    ...(runs === null ? [] : hookItems(runs, capture.originMs, capture.route, totalMs)),
    ...(db?.statements ?? []).map((statement): TimelineItem =>
      ({ kind: 'statement', type: statement.kind, name: snippet(statement.sql), plugin: '', startMs: statement.startMs, durationMs: statement.durationMs, ended: true }))
  ]
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
