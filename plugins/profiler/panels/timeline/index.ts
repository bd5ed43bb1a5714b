import type { Panel } from '../panel.js'
import { collectTimeline } from './collect.js'
import { timelineProbe, type TakenHookTimes } from './probe.js'
import { TimelineSchema, type StoredItem, type StoredTimeline, type TimelineItem } from './schema.js'
import { timelineView } from './view.js'

const storedItem = ({ kind, type, name, plugin, startMs, durationMs, ended }: TimelineItem): StoredItem => [kind, type, name, plugin, startMs, durationMs, ended]

/** An item read back: stored as its values, or whole (before 27 November 2026). */
function itemOf (stored: StoredItem | TimelineItem): TimelineItem {
  if (!Array.isArray(stored)) return stored
  const [kind, type, name, plugin, startMs, durationMs, ended] = stored
  return { kind, type, name, plugin, startMs, durationMs, ended }
}

/** Timeline: the phases, each hook run, the handler and each statement on one axis in ms, log lines as ticks. */
export const timelinePanel: Panel<typeof TimelineSchema, StoredTimeline, TakenHookTimes> = {
  name: 'timeline',
  label: 'Timeline',
  description: 'where the time went: the phases, each Fastify hook run and the handler (type, function name, plugin), each statement (SQL start), start and duration in ms; log lines as ticks (offset ms, level, message start); omitted: past the caps',
  schema: TimelineSchema,
  probe: timelineProbe,
  collect: collectTimeline,
  // The row holds the duration; an item is stored as its values.
  toStored ({ totalMs: _totalMs, ...kept }) {
    return { ...kept, items: kept.items.map(storedItem) }
  },
  fromStored (stored, row) {
    // Stored before hooksTimed existed: every run was timed then.
    return { totalMs: row.durationMs, ...stored, items: stored.items.map(itemOf), hooksTimed: (stored as Partial<StoredTimeline>).hooksTimed ?? true }
  },
  view: timelineView
}
