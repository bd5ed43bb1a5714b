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

interface Walk { bytes: number, budget: number }

/** Adds `value`'s strings and slots to `walk`, iteratively, until its budget is spent. */
function walkValue (value: unknown, walk: Walk): void {
  const stack: unknown[] = [value]
  while (stack.length > 0 && walk.budget > 0) {
    const item = stack.pop()
    walk.budget--
    walk.bytes += SLOT_BYTES
    if (typeof item === 'string') {
      walk.bytes += item.length
    } else if (ArrayBuffer.isView(item)) {
      walk.bytes += item.byteLength
    } else if (typeof item === 'object' && item !== null) {
      // for-in over own keys: Object.entries would make an array for every pair (an allocation a value).
      const record = item as Record<string, unknown>
      for (const key in record) {
        if (!Object.hasOwn(record, key)) continue
        walk.bytes += key.length
        stack.push(record[key])
      }
    }
  }
  if (stack.length > 0) walk.budget = 0
}

function approximateBytes (value: unknown, budget = WALK_BUDGET): Walk {
  const walk = { bytes: 0, budget }
  walkValue(value, walk)
  return walk
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
  const walk = approximateBytes(body)
  if (walk.budget > 0) return walk.bytes
  return Math.max(walk.bytes, declaredLength(headers) ?? MAX_BODY_BYTES)
}

/** The estimated bytes of a queued profile (a capture, or a profile already shaped). */
export function profileBytes (profile: QueuedProfile): number {
  if (!('kind' in profile)) return BASE_BYTES + profile.panels.length + profile.url.length + (profile.route?.length ?? 0)
  const { rawUrl, requestHeaders, responseHeaders, responseText, error, routingFailure, body, shapedBody, unparsedBody } = profile
  return BASE_BYTES +
    // The query and the params are parsed from the URL: no bigger than it, once more.
    2 * rawUrl.length +
    approximateBytes(requestHeaders).bytes +
    approximateBytes(responseHeaders).bytes +
    (responseText?.length ?? 0) +
    approximateBytes(error).bytes +
    approximateBytes(routingFailure).bytes +
    bodyBytes(body, requestHeaders) +
    approximateBytes(shapedBody).bytes +
    (unparsedBody?.text.length ?? 0) +
    // What the panels' probes took, as each estimates it (bounded by each probe's caps).
    takenBytes(profile.taken)
}
