import type { Redactor } from '../../../lib/redact.js'

/** Request bodies larger than this (as JSON) are kept as a truncated preview. */
export const MAX_BODY_BYTES = 64 * 1024

/** What the store keeps of a body over MAX_BODY_BYTES: the start of its redacted JSON and its size. */
interface BodyPreview { truncated: true, bytes: number, preview: string }

/**
 * The stored form of a redacted body: as it is when its JSON fits MAX_BODY_BYTES, else a marked
 * preview. `bytes` is the body's size as the client sent it (not of the redacted copy, which the
 * scan limits may have shortened).
 */
export function storedBody (redacted: unknown, sentBytes: number): unknown {
  if (redacted === undefined) return null
  const text = JSON.stringify(redacted)
  if (text === undefined || Buffer.byteLength(text) <= MAX_BODY_BYTES) return redacted
  const preview: BodyPreview = { truncated: true, bytes: sentBytes, preview: text.slice(0, MAX_BODY_BYTES) }
  return preview
}

/**
 * On the request thread, in onResponse: a body of more than MAX_BODY_BYTES as sent is turned into
 * the form the store keeps (redacted, then previewed) right away, so that a queue waiting on a
 * slow or failing store holds 64 KiB of it, not up to the 1 MiB a client may send. Undefined for
 * every other body: the writer thread shapes it, as it does all the rest.
 */
export function previewIfLarge (body: unknown, sentBytes: number, redactor: Redactor): unknown {
  if (body === undefined || sentBytes <= MAX_BODY_BYTES) return undefined
  return storedBody(redactor.fields(body), sentBytes)
}
