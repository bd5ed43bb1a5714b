import { Type, type Static } from 'typebox'
import { formatBytes, formatMs, roundMs } from '../units.js'
import type { Panel } from './panel.js'

const PerformanceSchema = Type.Object({
  totalMs: Type.Number(),
  beforeHandlerMs: Type.Number(),
  /** Null when no handler ran (routing failures, body errors). */
  handlerMs: Type.Union([Type.Number(), Type.Null()]),
  sendingMs: Type.Number(),
  heapUsedBytes: Type.Integer(),
  /** Profiles the store could not keep since the process started. */
  droppedProfiles: Type.Integer()
}, { additionalProperties: false })
export type PerformanceData = Static<typeof PerformanceSchema>

/** The timeline's width in SVG user units; each phase gets its share of it. */
const TIMELINE_WIDTH = 1000

const round2 = (n: number): number => Math.round(n * 100) / 100

/** Performance: total time, split into before the handler, in the handler and sending; heap at the end. */
export const performancePanel: Panel<typeof PerformanceSchema, Omit<PerformanceData, 'totalMs'>> = {
  name: 'performance',
  label: 'Performance',
  description: 'total time, before the handler, in the handler, sending, heap',
  schema: PerformanceSchema,
  collect ({ capture }) {
    const handlerStart = capture.handlerStartMs ?? capture.sendStartMs
    return {
      totalMs: roundMs(capture.totalMs),
      beforeHandlerMs: roundMs(handlerStart),
      handlerMs: capture.handlerStartMs === null ? null : roundMs(capture.sendStartMs - capture.handlerStartMs),
      sendingMs: roundMs(capture.totalMs - capture.sendStartMs),
      heapUsedBytes: capture.heapUsedBytes,
      droppedProfiles: capture.droppedProfiles
    }
  },
  // The row holds the duration.
  toStored ({ totalMs: _totalMs, ...kept }) {
    return kept
  },
  fromStored (stored, row) {
    return { totalMs: row.durationMs, ...stored }
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
