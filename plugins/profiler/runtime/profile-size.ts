import { takenBytes } from '../panels/probes.js'
import type { QueuedProfile } from '../capture/capture.js'

/**
 * What a queued profile costs in memory, estimated on the request thread without serialising it:
 * the lengths of its strings plus a fixed cost per object, key and value. A string counts one byte
 * per character (V8 keeps ASCII text so); only the order of magnitude matters for the queue's bound.
 */

/** The objects and arrays around a capture's values (measured: ~1 KiB of heap for a small capture). */
const BASE_BYTES = 1024
/** A key, a number, a slot in an object. */
const SLOT_BYTES = 16
/** Values walked per capture at most: a body with more is not walked to its end (see bodyBytes). */
const WALK_BUDGET = 1000
/** The request-body plugin's limit: what a parsed body that is too large to walk may hold at most. */
const MAX_BODY_BYTES = 1024 * 1024

/**
 * The walk's state, one for the thread (walks run one at a time, synchronously): a walk allocates
 * nothing of its own, where an object and a stack a walk were ~300 B a capture (measured).
 */
const stack: unknown[] = []
/** The walk's depth in `stack` (kept at its largest length: emptying an array frees its store). */
let top = 0
let walkBytes = 0
let walkBudget = 0

/** Adds `value`'s strings and slots to the walk, iteratively, until its budget is spent. */
function walkValue (value: unknown): void {
  stack[top++] = value
  while (top > 0 && walkBudget > 0) {
    const item = stack[--top]
    stack[top] = undefined
    walkBudget--
    walkBytes += SLOT_BYTES
    if (typeof item === 'string') {
      walkBytes += item.length
    } else if (ArrayBuffer.isView(item)) {
      walkBytes += item.byteLength
    } else if (typeof item === 'object' && item !== null) {
      // for-in over own keys: Object.entries would make an array for every pair (an allocation a value).
      const record = item as Record<string, unknown>
      for (const key in record) {
        if (!Object.hasOwn(record, key)) continue
        walkBytes += key.length
        stack[top++] = record[key]
      }
    }
  }
  if (top > 0) walkBudget = 0
  // What the budget left unwalked: let go of.
  while (top > 0) stack[--top] = undefined
}

/** The estimated bytes of `value`; `walkBudget` is left at what the walk did not spend (0: it stopped short). */
function approximateBytes (value: unknown, budget = WALK_BUDGET): number {
  walkBytes = 0
  walkBudget = budget
  walkValue(value)
  return walkBytes
}

/** The bytes the request declared (Content-Length), or null. */
function declaredLength (headers: Record<string, unknown>): number | null {
  const length = Number(headers['content-length'])
  return Number.isSafeInteger(length) && length >= 0 ? length : null
}

/**
 * A body's bytes: walked (a parsed JSON body is a few strings, usually), or, when it has more
 * values than the walk looks at, its declared length, else the body limit.
 */
function bodyBytes (body: unknown, headers: Record<string, unknown>): number {
  const bytes = approximateBytes(body)
  if (walkBudget > 0) return bytes
  return Math.max(bytes, declaredLength(headers) ?? MAX_BODY_BYTES)
}

/** The estimated bytes of a queued profile (a capture, or a profile already shaped). */
export function profileBytes (profile: QueuedProfile): number {
  if (!('kind' in profile)) return BASE_BYTES + profile.panels.length + profile.url.length + (profile.route?.length ?? 0)
  const { rawUrl, requestHeaders, responseHeaders, responseText, error, routingFailure, body, shapedBody, unparsedBody } = profile
  return BASE_BYTES +
    // The query and the params are parsed from the URL: no bigger than it, once more.
    2 * rawUrl.length +
    approximateBytes(requestHeaders) +
    approximateBytes(responseHeaders) +
    (responseText?.length ?? 0) +
    approximateBytes(error) +
    approximateBytes(routingFailure) +
    bodyBytes(body, requestHeaders) +
    approximateBytes(shapedBody) +
    (unparsedBody?.text.length ?? 0) +
    // What the panels' probes took, as each estimates it (bounded by each probe's caps).
    takenBytes(profile.taken)
}
