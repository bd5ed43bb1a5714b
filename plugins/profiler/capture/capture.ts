// What the request thread keeps of a finished request: plain data, taken cheaply in onResponse
// (no redaction, no parsing, no serialising) and handed to the writer thread as it is, where
// shape.ts redacts it and the collectors turn it into panels. ARCHITECTURE.md: "onResponse
// (capture, cheaply) -> bounded queue".
import type { ProfileRecord } from '../profile.js'
import { roundMs } from '../units.js'

/** The active span's ids and flags, as a request's capture carries them. */
export interface ActiveSpan {
  traceId: string
  spanId: string
  sampled: boolean
  /** Its tracestate, serialised; null when it has none. */
  traceState: string | null
}

/** The rendered error and its causes, as plain data (not yet redacted). */
export interface CapturedError {
  name: string
  message: string
  /** The error and each of its causes, outermost first; stacks only where the panel shows them. */
  chain: Array<{ name: string, message: string, stack?: string }>
}

/** The start of a body that was not parsed, decoded as UTF-8 (body-preview.ts). */
export interface UnparsedBody {
  text: string
  /** The text is the start of the body only (64 KiB of it). */
  truncated: boolean
  /** bodyBytes is the body's whole size (a chunked body not read to its end is larger). */
  sizeKnown: boolean
  /** Bytes that are not UTF-8 were replaced (U+FFFD): the text is not what was sent. */
  lossy: boolean
}

export interface RequestCapture {
  /** Tells a capture from an already shaped ProfileRecord in the queue. */
  kind: 'capture'
  id: number
  token: string
  ip: string
  method: string
  /** origin + the URL as requested: redacted in the writer thread. */
  rawUrl: string
  statusCode: number
  /** The request's start on performance.now()'s clock (Fastify's reply clock, read while it runs): the probes' times are on it. */
  originMs: number
  totalMs: number
  /** Until the handler started (null when no handler ran: routing failures, body errors). */
  handlerStartMs: number | null
  /** Until the reply began to be sent. */
  sendStartMs: number
  /** The matched route pattern; null when none matched. */
  route: string | null
  /** The matched route and its method(s); null when routing failed or nothing matched. */
  matched: { route: string | null, method: string } | null
  routingFailure: unknown
  params: unknown
  query: unknown
  /** The parsed body; undefined when the request had none (0 bytes) or shapedBody holds it already. */
  body: unknown
  /** The body's size as the client sent it (body-size.ts). */
  bodyBytes: number
  /** A large body as the store keeps it (redacted, previewed) on the request thread; undefined: shaped in the writer. */
  shapedBody: unknown
  /** A body sent but not parsed (refused for its type, its syntax or its size), as sent: not yet redacted. */
  unparsedBody: UnparsedBody | undefined
  requestHeaders: Record<string, unknown>
  responseHeaders: Record<string, unknown>
  /** The response text when it was JSON and small enough to keep. */
  responseText: string | undefined
  error: CapturedError | null
  /** The request thread's heap after the request (V8's figure: cheap). */
  heapUsedBytes: number
  droppedProfiles: number
  /** The OpenTelemetry span the request ran in (collect/active-span.ts); absent or null: none. */
  activeSpan?: ActiveSpan | null
  /**
   * What each panel's probe took of the request (panels/probe.ts), in the order of panels/probes.ts's
   * probedPanels; undefined when no probe ran (a request the HTTP parser rejected).
   */
  taken?: unknown[]
}

/** A request's duration as profiles and statistics record it: ms, to the microsecond. */
export function profileDuration (totalMs: number): number {
  return roundMs(totalMs)
}

const MAX_CHAIN = 20

/** The error and each of its causes, outermost first (a cycle or a chain beyond 20 ends it). */
export function captureError (error: Error | null, withStack: boolean): CapturedError | null {
  if (error === null) return null
  const chain: CapturedError['chain'] = []
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current instanceof Error && !seen.has(current) && chain.length < MAX_CHAIN) {
    seen.add(current)
    const entry: CapturedError['chain'][number] = { name: current.name, message: current.message }
    if (withStack && current.stack !== undefined) entry.stack = current.stack
    chain.push(entry)
    current = current.cause
  }
  return { name: error.name, message: error.message, chain }
}

/** What the queue holds: a request thread's capture (shaped in the writer thread), or a profile shaped already. */
export type QueuedProfile = RequestCapture | ProfileRecord
