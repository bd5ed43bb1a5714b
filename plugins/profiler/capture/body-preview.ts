import type { Redactor } from '../../../lib/redact.js'
import type { UnparsedBody } from './capture.js'

/**
 * Request bodies larger than this (as JSON) are kept as a truncated preview; as much of a body that
 * was not parsed is kept as sent (the body probes, collect/body-size.ts, keep this much of it).
 */
export const MAX_BODY_BYTES = 64 * 1024

/** What the store keeps of a body over MAX_BODY_BYTES: the start of its redacted JSON and its size. */
interface BodyPreview { truncated: true, bytes: number, preview: string }

/**
 * The stored form of a redacted body: as it is when its JSON fits MAX_BODY_BYTES, else a marked
 * preview. `bytes` is the body's size as the client sent it (not of the redacted copy, which the
 * scan limits may have shortened).
 */
function storedBody (redacted: unknown, sentBytes: number): unknown {
  if (redacted === undefined) return null
  const text = JSON.stringify(redacted)
  if (text === undefined || Buffer.byteLength(text) <= MAX_BODY_BYTES) return redacted
  const preview: BodyPreview = { truncated: true, bytes: sentBytes, preview: text.slice(0, MAX_BODY_BYTES) }
  return preview
}

/** A body as the store keeps it: redacted, as it is when its JSON fits MAX_BODY_BYTES, else a preview (what is past the preview is never scanned). */
export function redactedBody (body: unknown, sentBytes: number, redactor: Redactor): unknown {
  return storedBody(redactor.fieldsWithin(body, MAX_BODY_BYTES), sentBytes)
}

/**
 * On the request thread, in onResponse: a body of more than MAX_BODY_BYTES as sent is turned into
 * the form the store keeps (redacted, then previewed) right away, so that a queue waiting on a
 * slow or failing store holds 64 KiB of it, not up to the 1 MiB a client may send. Undefined for
 * every other body: the writer thread shapes it, as it does all the rest.
 */
export function previewIfLarge (body: unknown, sentBytes: number, redactor: Redactor): unknown {
  if (body === undefined || sentBytes <= MAX_BODY_BYTES) return undefined
  // A copy, not the strings themselves: V8 keeps a slice (the preview) or a cut value (the
  // redactor's scan limit) as a view of its whole parent, so a 64 KiB preview of a 1 MiB text held
  // the 1 MiB while it waited in the queue, sixteen times what the queue's byte bound counts.
  return structuredClone(redactedBody(body, sentBytes, redactor))
}

/**
 * On the request thread: the kept start of a body that was not parsed, as text (the queue and the
 * writer thread take strings). UTF-8 as sent when it is UTF-8 (a character cut at the end of a
 * truncated preview is left out); else with each invalid byte replaced, and said so.
 */
export function unparsedBody (bytes: Buffer, sentBytes: number, sizeKnown: boolean): UnparsedBody {
  const truncated = !sizeKnown || bytes.length < sentBytes
  let text: string
  let lossy = false
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: truncated })
  } catch {
    text = bytes.toString('utf8')
    lossy = true
  }
  return { text, truncated, sizeKnown, lossy }
}
