import { formatBytes, formatMs, roundMs } from '../units.js'
import type { RequestCapture } from '../capture/capture.js'
import type { Panel } from './panel.js'
import type { PerformanceData, PerformanceSchema } from './performance-schema.js'

export type { PerformanceData } from './performance-schema.js'

/** The panel as stored from 29 November 2026: its values but the total, in the schema's order (before: an object without the total). */
type PerformanceRecord = [beforeHandlerMs: number, handlerMs: number | null, sendingMs: number, heapUsedBytes: number, droppedProfiles: number]

function performanceRecord (capture: RequestCapture): PerformanceRecord {
  const handlerStart = capture.handlerStartMs ?? capture.sendStartMs
  return [
    roundMs(handlerStart),
    capture.handlerStartMs === null ? null : roundMs(capture.sendStartMs - capture.handlerStartMs),
    roundMs(capture.totalMs - capture.sendStartMs),
    capture.heapUsedBytes,
    capture.droppedProfiles
  ]
}

/** The timeline's width in SVG user units; each phase gets its share of it. */
const TIMELINE_WIDTH = 1000

const round2 = (n: number): number => Math.round(n * 100) / 100

/** Performance: total time, split into before the handler, in the handler and sending; heap at the end. */
export const performancePanel: Panel<typeof PerformanceSchema, Omit<PerformanceData, 'totalMs'> | PerformanceRecord> = {
  name: 'performance',
  label: 'Performance',
  description: 'total time, before the handler, in the handler, sending, heap',
  collect ({ capture }) {
    const [beforeHandlerMs, handlerMs, sendingMs, heapUsedBytes, droppedProfiles] = performanceRecord(capture)
    return { totalMs: roundMs(capture.totalMs), beforeHandlerMs, handlerMs, sendingMs, heapUsedBytes, droppedProfiles }
  },
  // Stored as its values in the schema's order, without the duration (the row holds it).
  record: ({ capture }) => performanceRecord(capture),
  fromStored (stored, row) {
    if (!Array.isArray(stored)) return { totalMs: row.durationMs, ...stored }
    const [beforeHandlerMs, handlerMs, sendingMs, heapUsedBytes, droppedProfiles] = stored
    return { totalMs: row.durationMs, beforeHandlerMs, handlerMs, sendingMs, heapUsedBytes, droppedProfiles }
  },
  /**
   * Human units, and the phases laid end to end with widths proportional to their durations (SVG
   * attributes: the CSP allows no inline style).
   */
  view (data) {
    const phases = [
      { name: 'before', label: 'Before the handler', ms: data.beforeHandlerMs },
      ...(data.handlerMs === null ? [] : [{ name: 'handler', label: 'In the handler', ms: data.handlerMs }]),
      { name: 'sending', label: 'Sending', ms: data.sendingMs }
    ]
    const sum = phases.reduce((total, phase) => total + Math.max(0, phase.ms), 0)
    let x = 0
    return {
      total: formatMs(data.totalMs),
      beforeHandler: formatMs(data.beforeHandlerMs),
      handler: data.handlerMs === null ? null : formatMs(data.handlerMs),
      sending: formatMs(data.sendingMs),
      heapUsed: formatBytes(data.heapUsedBytes),
      phases: phases.map(phase => {
        const width = sum === 0 ? 0 : Math.max(0, phase.ms) / sum * TIMELINE_WIDTH
        const laid = { name: phase.name, label: phase.label, time: formatMs(phase.ms), x: round2(x), width: round2(width) }
        x += width
        return laid
      })
    }
  }
}
