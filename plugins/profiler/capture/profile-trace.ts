// Runs in the writer thread: the trace a captured request belongs to. The OpenTelemetry span it ran
// in comes first (the profile and the process's own trace then share their ids); else the W3C
// traceparent it arrived with (lib/trace-context.ts: an invalid one is ignored).
import { traceContextOf } from '../../../lib/trace-context.js'
import type { RequestCapture } from './capture.js'

/** The trace of a profile: its id, the span it hangs under, and where they were read. */
export interface ProfileTrace {
  traceId: string
  parentSpanId: string
  sampled: boolean
  traceState: string | null
  source: 'opentelemetry' | 'traceparent'
}

export function traceOf (capture: Pick<RequestCapture, 'activeSpan' | 'requestHeaders'>): ProfileTrace | null {
  const span = capture.activeSpan
  if (span !== undefined && span !== null) return { traceId: span.traceId, parentSpanId: span.spanId, sampled: span.sampled, traceState: span.traceState, source: 'opentelemetry' }
  const header = traceContextOf(capture.requestHeaders as Record<string, string | string[] | undefined>)
  return header === null ? null : { ...header, source: 'traceparent' }
}
