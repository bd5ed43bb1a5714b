import { getHeapStatistics } from 'node:v8'
import type { Collector } from './collector.js'

const round = (ms: number): number => Math.round(ms * 1000) / 1000

/** Performance: total time, split into before the handler, in the handler and sending; heap at the end. */
export const performanceCollector: Collector = {
  name: 'performance',
  label: 'Performance',
  collect ({ timings, droppedProfiles }) {
    const handlerStart = timings.handlerStartMs ?? timings.sendStartMs
    return {
      totalMs: round(timings.totalMs),
      beforeHandlerMs: round(handlerStart),
      handlerMs: timings.handlerStartMs === null ? null : round(timings.sendStartMs - timings.handlerStartMs),
      sendingMs: round(timings.totalMs - timings.sendStartMs),
      // V8's own figure: process.memoryUsage() also reads the RSS from /proc, ten times the cost.
      heapUsedBytes: getHeapStatistics().used_heap_size,
      droppedProfiles
    }
  }
}
