// The OpenTelemetry span a request runs in, when the process traces with OpenTelemetry (an SDK
// registered through @opentelemetry/api's global, as @fastify/otel, the auto-instrumentations and
// Sentry do): its ids put the profile in the same trace without any header. Without an SDK no span
// is active, at the cost of a property read.
import { createRequire } from 'node:module'
import type { Span } from '@opentelemetry/api'
import type { ActiveSpan } from '../capture/capture.js'

type OpenTelemetryApi = typeof import('@opentelemetry/api')

/**
 * Where @opentelemetry/api 1.x keeps what an SDK registers (its internal/global-utils.js: the major
 * version in a global symbol). Without a context manager there, the API's context is its no-op one,
 * where no span is ever active.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1')

const load = createRequire(import.meta.url)
// Resolved now, loaded on the first request that needs it: the API is 44 CommonJS files (~30 ms of
// CPU at every start) that a process without an SDK never uses; a missing package still fails the start.
const apiPath = load.resolve('@opentelemetry/api')
let api: OpenTelemetryApi | undefined
const loadedApi = (): OpenTelemetryApi => (api ??= load(apiPath) as OpenTelemetryApi)

/** Whether an SDK registered a context manager in the API's global (else no span can be active). */
function contextRegistered (): boolean {
  const registered = (globalThis as Record<symbol, { context?: unknown } | undefined>)[API_GLOBAL]
  return registered?.context !== undefined
}

/** What @fastify/otel decorates a request with (its README's `request.opentelemetry()`), as far as it is read here. */
interface FastifyOtelRequest { opentelemetry?: () => { instrumented?: boolean, span?: Span | null } }

/**
 * The request's span: the one @fastify/otel made for it when it is registered (registered as a
 * plugin, it makes that span active only in its own hooks, not in ours), else the span active now
 * (in a request's hook: the request's span or one of its children); null when there is none.
 */
export function activeSpan (request: object): ActiveSpan | null {
  const otel = (request as FastifyOtelRequest).opentelemetry?.()
  const instrumented = otel?.instrumented === true ? otel.span : null
  if ((instrumented === undefined || instrumented === null) && !contextRegistered()) return null
  const { isSpanContextValid, trace } = loadedApi()
  const span = instrumented ?? trace.getActiveSpan()
  if (span === undefined || span === null) return null
  const context = span.spanContext()
  if (!isSpanContextValid(context)) return null
  const state = context.traceState?.serialize() ?? ''
  return { traceId: context.traceId, spanId: context.spanId, sampled: (context.traceFlags & 1) === 1, traceState: state === '' ? null : state }
}
