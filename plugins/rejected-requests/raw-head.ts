import { METHODS } from 'node:http'

// What can be read of a request the HTTP parser rejected before its head was complete, from what
// Node documents on the 'clientError' event's error: the bytes of the read the parser failed in
// (`rawPacket`: that read only, which may hold requests pipelined before this one) and how far the
// parser got in it (`bytesParsed`). A head that came in several reads is read from its last: the
// reads before it are not handed over (a 60 KB URL that crossed the 16 KiB limit in its second
// read has its method and the start of its target in the first, and is stored without them; the
// header lines of the read that crossed it are still read).
// Bytes the client sends after the rejecting read are not waited for either. Best effort and
// bounded: only what is there is read, never more than SCAN_BYTES of the packet, and never trusted
// for more than a label (the profile's method, target and headers, and the Accept header's choice).

export interface RawHead {
  /** The method as sent; '' when it could not be read. */
  method: string
  /**
   * The request target as sent (its first MAX_TEXT bytes), every byte outside visible ASCII
   * percent-encoded: '' when it could not be read.
   */
  target: string
  /** The header lines that could be read, by lower-case name (repeats joined with ", "). */
  headers: Record<string, string>
}

/** Bytes of the packet looked at. */
const SCAN_BYTES = 64 * 1024
/** A longer target or header value is kept as its first 2,048 characters and the count of the rest (a 60 KB URL). */
const MAX_TEXT = 2048
const MAX_HEADERS = 100

const escapeRegExp = (text: string): string => text.replace(/[-[\]{}()*+?.,\\^$|#]/g, '\\$&')
// A request line of a method Node knows; the line may be cut by the end of the packet.
// The target runs to ASCII whitespace: \S would stop at byte 0xA0 (U+00A0 in Latin-1, a space to JS).
const REQUEST_LINE = new RegExp(`(${METHODS.map(escapeRegExp).join('|')}) ([^ \\t\\r\\n\\f\\v]+)(?: HTTP/[^\\r\\n]{0,16}(?:\\r?\\n|$)|$)`, 'g')
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/

const cut = (text: string, max: number): string => text.length <= max ? text : `${text.slice(0, max)}…[${text.length - max} more characters]`

/** A byte the stored target keeps as it is: visible ASCII. */
const VISIBLE_ASCII = /^[\x21-\x7e]*$/
const OUTSIDE_VISIBLE_ASCII = /[^\x21-\x7e]/g

/**
 * A target read as Latin-1 (one character per byte) as a URL may hold it: every byte outside
 * visible ASCII percent-encoded. The parser rejects such bytes, so they reach a profile only from
 * here: as text, UTF-8 `/café` became the mojibake `/cafÃ©` and a byte that is no UTF-8 a
 * replacement character; encoded, the listing shows `/caf%C3%A9` and `/%FF`, which search decodes.
 */
function percentEncodedBytes (latin1: string): string {
  if (VISIBLE_ASCII.test(latin1)) return latin1
  return latin1.replace(OUTSIDE_VISIBLE_ASCII, character => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
}

/** The target's first MAX_TEXT bytes, encoded; the count of the bytes left out after them. */
function keptTarget (latin1: string): string {
  const kept = percentEncodedBytes(latin1.slice(0, MAX_TEXT))
  return latin1.length <= MAX_TEXT ? kept : `${kept}…[${latin1.length - MAX_TEXT} more characters]`
}

/** The header lines from `text` up to the blank line that ends the head (or the end of the text). */
function readHeaders (text: string): Record<string, string> {
  const headers: Record<string, string> = {}
  let count = 0
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine
    if (line === '' || count >= MAX_HEADERS) break
    const match = HEADER_LINE.exec(line)
    if (match === null) continue
    const name = (match[1] ?? '').toLowerCase()
    const value = cut(match[2] ?? '', MAX_TEXT)
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
    count++
  }
  return headers
}

/** The head of the request the parser stopped in, from the packet it was parsing (the read it failed in). */
export function readRawHead (packet: unknown, bytesParsed: number | undefined, code: string | undefined): RawHead {
  if (!Buffer.isBuffer(packet) || packet.length === 0) return { method: '', target: '', headers: {} }
  const scanned = packet.subarray(0, SCAN_BYTES)
  const text = scanned.toString('latin1')
  const errorAt = Math.min(bytesParsed ?? scanned.length, scanned.length)
  if (code === 'HPE_INVALID_METHOD') {
    // The request starts where the parser stopped, with something that is not a method.
    const lineEnd = text.indexOf('\n', errorAt)
    return { method: '', target: '', headers: lineEnd === -1 ? {} : readHeaders(text.slice(lineEnd + 1)) }
  }
  // The last request line that starts before the parser stopped is the rejected request's.
  let last: RegExpExecArray | null = null
  REQUEST_LINE.lastIndex = 0
  for (let match = REQUEST_LINE.exec(text); match !== null && match.index <= errorAt; match = REQUEST_LINE.exec(text)) last = match
  if (last === null) {
    // The request line came in an earlier read: this one starts inside the head (in the target, or
    // in a header line), so its header lines are read from its first line break on.
    const lineEnd = text.indexOf('\n')
    return { method: '', target: '', headers: lineEnd === -1 ? {} : readHeaders(text.slice(lineEnd + 1)) }
  }
  return {
    method: last[1] ?? '',
    target: keptTarget(last[2] ?? ''),
    headers: readHeaders(text.slice(last.index + last[0].length))
  }
}
