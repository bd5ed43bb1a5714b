// The form in which URLs are searched (issue 37): percent-escapes decoded, so that a term finds a
// URL whatever the case of its hex and whichever characters its client chose to encode. The stored
// and listed URL stays as the client sent it; each engine indexes this form of each distinct URL.

/** A run of percent-escapes, hex in either case. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g

/** The length of the valid UTF-8 sequence starting at `bytes[at]`, 0 when there is none (RFC 3629). */
function utf8SequenceLength (bytes: number[], at: number): number {
  const lead = bytes[at] as number
  const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0
  if (length <= 1 || at + length > bytes.length) return length === 1 ? 1 : 0
  for (let k = 1; k < length; k++) if (((bytes[at + k] as number) & 0xc0) !== 0x80) return 0
  const second = bytes[at + 1] as number
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are no UTF-8.
  if ((lead === 0xe0 && second < 0xa0) || (lead === 0xed && second > 0x9f) || (lead === 0xf0 && second < 0x90) || (lead === 0xf4 && second > 0x8f)) return 0
  return length
}

const escaped = (byte: number): string => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`

/** A run of escapes decoded: each valid UTF-8 sequence as its character, every other byte as `%XX` (upper-case). */
function decodeRun (run: string): string {
  const bytes: number[] = []
  for (let i = 0; i < run.length; i += 3) bytes.push(Number.parseInt(run.slice(i + 1, i + 3), 16))
  let decoded = ''
  for (let at = 0; at < bytes.length;) {
    const length = utf8SequenceLength(bytes, at)
    const byte = bytes[at] as number
    // `%` and the ASCII control characters stay escaped: a `%` in the search form always starts an
    // escape (so `%2541` and `%41` stay apart), and no search form holds a NUL (PostgreSQL text cannot).
    if (length === 0 || (length === 1 && (byte === 0x25 || byte < 0x20 || byte === 0x7f))) {
      decoded += escaped(byte)
      at += 1
    } else {
      decoded += Buffer.from(bytes.slice(at, at + length)).toString('utf8')
      at += length
    }
  }
  return decoded
}

/**
 * A URL (or a URL search term) as searched: every percent-escape decoded where the escaped bytes
 * are valid UTF-8, except those of `%` and of ASCII control characters; what is left escaped is
 * written `%XX` in upper-case. Everything else is kept as it is (`+` too). `/caf%c3%a9`,
 * `/caf%C3%A9` and `/café` are all `/café`; `/%61dmin` is `/admin`; `/x%ffy` is `/x%FFy`.
 */
export function urlSearchForm (url: string): string {
  return url.includes('%') ? url.replace(ESCAPES, decodeRun) : url
}

/** What an engine stores next to a distinct URL: its search form, or null when that is the URL itself. */
export function storedSearchForm (url: string): string | null {
  const form = urlSearchForm(url)
  return form === url ? null : form
}
