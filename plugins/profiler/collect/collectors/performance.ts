import type { Collector } from './collector.js'

const round = (ms: number): number => Math.round(ms * 1000) / 1000

/** Performance: total time, split into before the handler, in the handler and sending; heap at the end. */
export const performanceCollector: Collector = {
  name: 'performance',
  label: 'Performance',
  collect ({ capture }) {
    const handlerStart = capture.handlerStartMs ?? capture.sendStartMs
    return {
      totalMs: round(capture.totalMs),
      beforeHandlerMs: round(handlerStart),
      handlerMs: capture.handlerStartMs === null ? null : round(capture.sendStartMs - capture.handlerStartMs),
      sendingMs: round(capture.totalMs - capture.sendStartMs),
      heapUsedBytes: capture.heapUsedBytes,
      droppedProfiles: capture.droppedProfiles
    }
  }
}
