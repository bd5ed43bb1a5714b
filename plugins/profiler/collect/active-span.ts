// The OpenTelemetry span a request runs in, when the process traces with OpenTelemetry (an SDK
// registered through @opentelemetry/api's global, as @fastify/otel, the auto-instrumentations and
// Sentry do): its ids put the profile in the same trace without any header. Without an SDK the
// API's no-op context answers no span, at the cost of a property read.
import { isSpanContextValid, trace, type Span } from '@opentelemetry/api'
import type { ActiveSpan } from '../capture/capture.js'

/** What @fastify/otel decorates a request with (its README's `request.opentelemetry()`), as far as it is read here. */
interface FastifyOtelRequest { opentelemetry?: () => { instrumented?: boolean, span?: Span | null } }

/**
 * The request's span: the one @fastify/otel made for it when it is registered (registered as a
 * plugin, it makes that span active only in its own hooks, not in ours), else the span active now
 * (in a request's hook: the request's span or one of its children); null when there is none.
 */
export function activeSpan (request: object): ActiveSpan | null {
  const otel = (request as FastifyOtelRequest).opentelemetry?.()
  const span = (otel?.instrumented === true ? otel.span : null) ?? trace.getActiveSpan()
  if (span === undefined || span === null) return null
  const context = span.spanContext()
  if (!isSpanContextValid(context)) return null
  const state = context.traceState?.serialize() ?? ''
  return { traceId: context.traceId, spanId: context.spanId, sampled: (context.traceFlags & 1) === 1, traceState: state === '' ? null : state }
}
