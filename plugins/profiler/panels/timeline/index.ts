import type { Panel } from '../panel.js'
import { collectTimeline } from './collect.js'
import { timelineProbe, type TakenHookTimes } from './probe.js'
import { TimelineSchema, type StoredTimeline } from './schema.js'
import { timelineView } from './view.js'

/** Timeline: the phases, each hook run, the handler and each statement on one axis in ms, log lines as ticks. */
export const timelinePanel: Panel<typeof TimelineSchema, StoredTimeline, TakenHookTimes> = {
  name: 'timeline',
  label: 'Timeline',
  description: 'where the time went: the phases, each Fastify hook run and the handler (type, function name, plugin), each statement (SQL start), start and duration in ms; log lines as ticks (offset ms, level, message start); omitted: past the caps',
  schema: TimelineSchema,
  probe: timelineProbe,
  collect: collectTimeline,
  // The row holds the duration.
  toStored ({ totalMs: _totalMs, ...kept }) {
    return kept
  },
  fromStored (stored, row) {
    // Stored before hooksTimed existed: every run was timed then.
    return { totalMs: row.durationMs, ...stored, hooksTimed: (stored as Partial<StoredTimeline>).hooksTimed ?? true }
  },
  view: timelineView
}
