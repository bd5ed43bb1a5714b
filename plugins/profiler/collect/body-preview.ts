import type { Redactor } from '../../../lib/redact.js'

/** Request bodies larger than this (as JSON) are kept as a truncated preview. */
export const MAX_BODY_BYTES = 64 * 1024

/** What the store keeps of a body over MAX_BODY_BYTES: the start of its redacted JSON and its size. */
interface BodyPreview { truncated: true, bytes: number, preview: string }

/** Values looked at, at most, to tell whether a body is small (a body of ours has a few). */
const WALK_BUDGET = 1000

/**
 * The stored form of a redacted body: as it is when its JSON fits MAX_BODY_BYTES, else a marked
 * preview. `bytes` is the body's size as received when known (the raw length), else its JSON's.
 */
export function storedBody (redacted: unknown, receivedBytes?: number): unknown {
  if (redacted === undefined) return null
  const text = JSON.stringify(redacted)
  if (text === undefined || Buffer.byteLength(text) <= MAX_BODY_BYTES) return redacted
  const preview: BodyPreview = { truncated: true, bytes: receivedBytes ?? Buffer.byteLength(text), preview: text.slice(0, MAX_BODY_BYTES) }
  return preview
}

/**
 * Whether a parsed body may be over MAX_BODY_BYTES as JSON: its keys and strings are added up (a
 * string's length, not its text, is read) over at most WALK_BUDGET values; a body with more values
 * than that counts as large. Cheap for the bodies of every business request.
 */
function mayBeLarge (body: unknown): boolean {
  let chars = 0
  let budget = WALK_BUDGET
  const stack: unknown[] = [body]
  while (stack.length > 0) {
    if (--budget < 0) return true
    const item = stack.pop()
    chars += 8 // quotes, separators, a number or a literal
    if (typeof item === 'string') {
      chars += item.length
    } else if (typeof item === 'object' && item !== null) {
      for (const key of Object.keys(item)) {
        chars += key.length
        stack.push((item as Record<string, unknown>)[key])
      }
    }
    if (chars > MAX_BODY_BYTES) return true
  }
  return false
}

/**
 * On the request thread, in onResponse: a body that may be over MAX_BODY_BYTES is turned into the
 * form the store keeps (redacted, then previewed) right away, so that a queue waiting on a slow or
 * failing store holds 64 KiB of it, not up to the 1 MiB a client may send. Undefined for every
 * other body: the writer thread shapes it, as it does all the rest.
 */
export function previewIfLarge (body: unknown, receivedBytes: number | undefined, redactor: Redactor): unknown {
  if (body === undefined || body === null || typeof body !== 'object') return undefined
  if (receivedBytes !== undefined ? receivedBytes <= MAX_BODY_BYTES : !mayBeLarge(body)) return undefined
  return storedBody(redactor.fields(body), receivedBytes)
}
