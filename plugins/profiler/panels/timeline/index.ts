import { profileDuration } from '../../capture/capture.js'
import { dbPanel } from '../db/index.js'
import { logsPanel } from '../logs/index.js'
import type { CollectContext, Panel } from '../panel.js'
import { performancePanel } from '../performance.js'
import { recordTimeline, timelineOf } from './collect.js'
import { timelineProbe, type TakenHookTimes } from './probe.js'
import type { TimelineSchema, StoredItem, StoredTimeline, TimelineItem } from './schema.js'
import { timelineView } from './view.js'

/** An item read back from the items' form: stored as its values, or whole (before 27 November 2026). */
function itemOf (stored: StoredItem | TimelineItem): TimelineItem {
  if (!Array.isArray(stored)) return stored
  const [kind, type, name, plugin, startMs, durationMs, ended] = stored
  return { kind, type, name, plugin, startMs, durationMs, ended }
}

/** The timeline at once, in the writer thread, from the panels collected before it: what reading its record gives. */
function collectTimeline (context: CollectContext, hooks: TakenHookTimes | undefined) {
  const { capture, collected } = context
  const db = collected(dbPanel)
  const row = { method: capture.method, url: context.url, route: capture.route, status: capture.statusCode, durationMs: profileDuration(capture.totalMs), queries: db?.queryCount ?? 0, queryMs: db?.queryMs ?? 0 }
  return timelineOf(recordTimeline(context, hooks), row, { [dbPanel.name]: db, [logsPanel.name]: collected(logsPanel), [performancePanel.name]: collected(performancePanel) })
}

/** Timeline: the phases, each hook run, the handler and each statement on one axis in ms, log lines as ticks. */
export const timelinePanel: Panel<typeof TimelineSchema, StoredTimeline, TakenHookTimes> = {
  name: 'timeline',
  label: 'Timeline',
  description: 'where the time went: the phases, each Fastify hook run and the handler (type, function name, plugin), each statement (SQL start), start and duration in ms; log lines as ticks (offset ms, level, message start); omitted: past the caps',
  probe: timelineProbe,
  collect: collectTimeline,
  // Stored: the hook runs as numbers; the rest is the db, logs and performance panels' and the row's.
  record: recordTimeline,
  fromStored (stored, row, read) {
    if ('v' in stored) return timelineOf(stored, row, read)
    // Stored before 29 November 2026: the items themselves; before hooksTimed existed, every run was timed.
    return { totalMs: row.durationMs, ...stored, items: stored.items.map(itemOf), hooksTimed: (stored as Partial<typeof stored>).hooksTimed ?? true }
  },
  view: timelineView
}
