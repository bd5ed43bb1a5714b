// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` and `tracestate`
// request headers read by their grammar. A header that breaks a rule is ignored, never an error:
// the request simply carries no trace (and a tracestate without a valid traceparent is dropped too).

/** The trace a request belongs to, as its `traceparent` (and `tracestate`) said. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string
  /** The caller's span: 16 lowercase hex digits, not all zero. */
  parentSpanId: string
  /** The caller recorded its part of the trace (flags bit 0). */
  sampled: boolean
  /** The vendors' entries, re-joined with commas; null when absent or not valid. */
  traceState: string | null
}

const VERSION_00_LENGTH = 55
const HEX2 = /^[0-9a-f]{2}$/
// version "-" trace-id "-" parent-id "-" trace-flags, lowercase hex only (HEXDIGLC).
const FIELDS = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})/
const ALL_ZERO = /^0+$/

/** A `traceparent` value's ids and flags; null when it is not one. */
export function parseTraceparent (value: string): Omit<TraceContext, 'traceState'> | null {
  if (value.length < VERSION_00_LENGTH) return null
  const version = value.slice(0, 2)
  if (!HEX2.test(version) || version === 'ff') return null
  // Version 00 is exactly 55 characters; a later version may append fields after a dash.
  if (version === '00' ? value.length !== VERSION_00_LENGTH : value.length > VERSION_00_LENGTH && value[VERSION_00_LENGTH] !== '-') return null
  const fields = FIELDS.exec(value)
  if (fields === null) return null
  const [, , traceId = '', parentSpanId = '', flags = ''] = fields
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentSpanId)) return null
  return { traceId, parentSpanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 }
}

const MAX_MEMBERS = 32
// A key: a simple key, or tenant@system; a value: printable ASCII without ',' and '=', no trailing space.
const MEMBER = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/

/** A `tracestate` value (headers joined by commas): its members re-joined, or null when one of them breaks the grammar. */
export function parseTracestate (value: string): string | null {
  const members: string[] = []
  const keys = new Set<string>()
  for (const raw of value.split(',')) {
    const member = raw.trim()
    // Empty members are allowed (and dropped) by the list's grammar.
    if (member === '') continue
    if (!MEMBER.test(member)) return null
    const key = member.slice(0, member.indexOf('='))
    if (keys.has(key)) return null
    keys.add(key)
    members.push(member)
  }
  if (members.length === 0 || members.length > MAX_MEMBERS) return null
  return members.join(',')
}

/** The trace of a request's headers; null when `traceparent` is absent, repeated or not valid. */
export function traceContextOf (headers: Record<string, string | string[] | undefined>): TraceContext | null {
  const parent = headers.traceparent
  // Node joins a repeated traceparent with ", " (then too long for any version): ignored either way.
  if (typeof parent !== 'string') return null
  const ids = parseTraceparent(parent.trim())
  if (ids === null) return null
  const state = headers.tracestate
  const joined = Array.isArray(state) ? state.join(',') : state
  return { ...ids, traceState: joined === undefined ? null : parseTracestate(joined) }
}

/** A tracing UI's link template (PROFILER_TRACE_URL) with a trace id in place of each `{traceId}`. */
export function traceLink (template: string, traceId: string): string {
  return template.replaceAll('{traceId}', encodeURIComponent(traceId))
}
