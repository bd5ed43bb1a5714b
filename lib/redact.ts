// Secrets never reach the profile store in clear. Two rules, applied before anything is queued:
// - by name: headers, fields and query parameters whose name says they hold a secret;
// - by value: JWTs, Bearer credentials and payment-card numbers, in any text we keep
//   (field values, header values, the URL, error messages, stack traces).

export const REDACTED = '[redacted]'
const REDACTED_IN_URL = encodeURIComponent(REDACTED)

const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token', 'x-csrf-token']
// "auth" but not "author"/"authority" (authorization is listed on its own).
const SECRET_NAME = /pass(word|wd|phrase)?|pwd|secret|token|api[-_ ]?key|authori[sz]ation|auth(?!or)|credential|cookie|session[-_]?id|^pin$|cvv|card[-_]?number/i
const MAX_DEPTH = 32
/** Values a deep copy visits at most; 10,000 is far above any body of ours (one field). */
const MAX_FIELDS = 10_000
const BEYOND_FIELDS = `[redacted: beyond the ${MAX_FIELDS}-value scan limit]`

/**
 * Texts longer than this are scanned up to here; the rest is replaced by a marker, never kept in
 * clear. 64 KiB is the largest request body the request panel keeps in full, and far above any
 * URL, header or message (Node refuses headers over 16 KiB). A scan of 64 KiB of the worst shapes
 * measured here takes a few milliseconds.
 */
export const MAX_SCAN_CHARS = 64 * 1024
/** How far back from the cap the cut looks for a separator, so that no secret is cut in half and kept. */
const CUT_LOOKBACK = 4096

// Every alternative below runs in time linear in the text: a pattern that can start inside a run
// of characters it also repeats over (`\beyJ[\w-]{4,}` after each dash of "eyJ-eyJ-...") would
// rescan the run from every start. So a JWT starts only where no base64url character precedes it,
// a pair's name only after a separator, and a card number's digits are bounded.
const JWT = /(?<![\w-])eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/.source
const BEARER = /\b[Bb]earer\s+[\w.~+/-]{6,}=*/.source
const CARD = /(?<!\d)[2-6](?:[ -]?\d){12,18}(?!\d)/.source
const PAIR = /(?<=^|[?&\s;,])([\w.%[\]-]+)=([^&\s"'#<>,;]*)/.source

/**
 * One pass finds every value-shaped secret in a text:
 * a JWT (three base64url parts, the first a JSON header), a Bearer credential,
 * a card number (13-19 digits, spaces or dashes allowed, starting 2-6 as issuers' numbers do,
 * checked with Luhn below), and a `name=value` pair (URLs, forms, messages) whose name is secret.
 */
const SECRET_TEXT = new RegExp([JWT, BEARER, CARD, PAIR].join('|'), 'g')
/** Inside a pair's value (no whitespace there, so no Bearer): JWTs and card numbers. */
const SECRET_IN_VALUE = new RegExp([JWT, CARD].join('|'), 'g')
/** Inside a pair's value, the names of nested pairs (`a=password=x`): a name run right before an '='. */
const NESTED_NAME = /(?<![\w.%[\]-])([\w.%[\]-]+)=/g

const CARD_DIGITS_MIN = 13

/**
 * A cheap scan first (most texts hold no secret, and a regular expression costs ten times more):
 * whether the text has an '=', "eyJ", "earer", or 13 digits in a row (spaces and dashes allowed).
 */
function mayHoldSecret (text: string): boolean {
  let digits = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      if (++digits >= CARD_DIGITS_MIN) return true
    } else if (c === 61) { // =
      return true
    } else if (c !== 32 && c !== 45) { // a space or a dash may separate a card number's digits
      digits = 0
      if (c === 101 && (text.startsWith('eyJ', i) || text.startsWith('earer', i))) return true
    }
  }
  return false
}

/** The Luhn checksum of a digit string (payment-card numbers pass it). */
function passesLuhn (digits: string): boolean {
  let sum = 0
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let digit = digits.charCodeAt(i) - 48
    if (double) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2
    sum += digit
  }
  return sum % 10 === 0
}

function isCardNumber (text: string): boolean {
  const digits = text.replace(/[ -]/g, '')
  return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)
}

function decodeName (raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    return raw // a malformed escape is not a secret name by itself
  }
}

/**
 * The first MAX_SCAN_CHARS of a text, cut back to the last separator (whitespace, &, ;, ,) within
 * CUT_LOOKBACK characters of the cap, so that a secret straddling the cap is dropped, not kept in part.
 */
function cutForScan (text: string): string {
  for (let i = MAX_SCAN_CHARS - 1; i >= MAX_SCAN_CHARS - CUT_LOOKBACK; i--) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 38 || c === 59 || c === 44) return text.slice(0, i + 1)
  }
  return text.slice(0, MAX_SCAN_CHARS)
}

function beyondScanMarker (characters: number): string {
  return `[redacted: ${characters} characters beyond the ${MAX_SCAN_CHARS}-character scan limit]`
}

export interface RedactionRules {
  /** Header names redacted on top of the built-in ones. */
  headers?: string[]
  /** Field-name fragments redacted on top of the built-in ones (case-insensitive). */
  fields?: string[]
}

export class Redactor {
  private readonly secretHeaders: Set<string>
  private readonly extraFields: string[]

  constructor (rules: RedactionRules = {}) {
    this.secretHeaders = new Set([...SECRET_HEADERS, ...(rules.headers ?? []).map(name => name.toLowerCase())])
    this.extraFields = (rules.fields ?? []).map(name => name.toLowerCase())
  }

  isSecretName (name: string): boolean {
    if (SECRET_NAME.test(name)) return true
    if (this.extraFields.length === 0) return false
    const lower = name.toLowerCase()
    return this.extraFields.some(fragment => lower.includes(fragment))
  }

  /**
   * A text with every value-shaped secret, and the value of every secret-named pair, replaced.
   * Linear in the text, no recursion; beyond MAX_SCAN_CHARS the text is replaced by a marker.
   */
  text (text: string): string {
    if (text.length <= MAX_SCAN_CHARS) return this.scan(text)
    const kept = cutForScan(text)
    return this.scan(kept) + beyondScanMarker(text.length - kept.length)
  }

  private scan (text: string): string {
    if (!mayHoldSecret(text)) return text
    return text.replace(SECRET_TEXT, (match: string, name: string | undefined, value: string | undefined) => {
      if (name !== undefined) {
        // A pair's whole value goes when its name is secret or the value holds a secret.
        if (value === undefined || value === '' || value === REDACTED_IN_URL) return match
        return this.isSecretName(decodeName(name)) || this.valueHoldsSecret(value) ? `${name}=${REDACTED_IN_URL}` : match
      }
      if (match.startsWith('eyJ')) return REDACTED
      if (/^[Bb]earer/.test(match)) return `${match.slice(0, 6)} ${REDACTED}`
      return isCardNumber(match) ? REDACTED : match
    })
  }

  /**
   * Whether a pair's value holds a JWT, a card number, or a nested pair with a secret name
   * (`a=b=password=x`). Replaces what was a recursive call per nested '=': "a=a=a=..." of 12 KB
   * overflowed the stack (and took seconds at 1 MB).
   */
  private valueHoldsSecret (value: string): boolean {
    if (!mayHoldSecret(value)) return false
    // exec() on the shared expressions: matchAll() clones the expression on every call.
    SECRET_IN_VALUE.lastIndex = 0
    for (let match = SECRET_IN_VALUE.exec(value); match !== null; match = SECRET_IN_VALUE.exec(value)) {
      if (match[0].startsWith('eyJ') || isCardNumber(match[0])) return true
    }
    if (!value.includes('=')) return false
    NESTED_NAME.lastIndex = 0
    for (let match = NESTED_NAME.exec(value); match !== null; match = NESTED_NAME.exec(value)) {
      if (this.isSecretName(decodeName(match[1] ?? ''))) return true
    }
    return false
  }

  /** The URL with secret-named query values and value-shaped secrets replaced; the rest kept byte for byte. */
  url (url: string): string {
    const redacted = this.text(url)
    const mark = redacted.indexOf('?')
    if (mark === -1) return redacted
    // Values written with escapes (`4111%201111...`) are checked once decoded too.
    const pairs = redacted.slice(mark + 1).split('&').map(pair => {
      const equals = pair.indexOf('=')
      if (equals === -1) return pair
      const value = decodeName(pair.slice(equals + 1))
      return this.text(value) === value ? pair : `${pair.slice(0, equals)}=${REDACTED_IN_URL}`
    })
    return `${redacted.slice(0, mark)}?${pairs.join('&')}`
  }

  headers (headers: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    // Object.keys, not Object.entries: no [key, value] array per header (shaping runs per profile).
    for (const name of Object.keys(headers)) {
      const value = headers[name]
      if (value === undefined) continue
      out[name] = this.secretHeaders.has(name.toLowerCase()) ? REDACTED : this.fields(value)
    }
    return out
  }

  /**
   * A deep copy in which secret-named fields and value-shaped secrets are replaced. At most
   * MAX_FIELDS values are visited (a 1 MiB body of 35,000 fields took half a second): the values
   * beyond are replaced by a marker, never kept in clear.
   */
  fields (value: unknown): unknown {
    return this.copy(value, 0, { left: MAX_FIELDS })
  }

  private copy (value: unknown, depth: number, budget: { left: number }): unknown {
    if (--budget.left < 0) return BEYOND_FIELDS
    if (typeof value === 'string') return this.text(value)
    // Below 2e12 no integer has a card number's 13 to 19 digits: most numbers are never printed.
    if (typeof value === 'number') return Number.isInteger(value) && value >= 2e12 && /^[2-6]\d{12,18}$/.test(String(value)) && isCardNumber(String(value)) ? REDACTED : value
    if (value === null || typeof value !== 'object') return value
    if (depth >= MAX_DEPTH) return '[too deep]'
    if (Array.isArray(value)) return value.map(item => this.copy(item, depth + 1, budget))
    const out: Record<string, unknown> = {}
    const object = value as Record<string, unknown>
    for (const key of Object.keys(object)) {
      out[key] = this.isSecretName(key) ? REDACTED : this.copy(object[key], depth + 1, budget)
    }
    return out
  }
}
