// Secrets never reach the profile store in clear. Two rules, applied before anything is queued:
// - by name: headers, fields and query parameters whose name says they hold a secret (one rule
//   for all three; a query parameter's name is judged once decoded, `+` and `%20` as spaces);
// - by value: JWTs, Bearer credentials, payment-card numbers, the password of a URL's user info
//   (`redis://:pw@host`, any scheme) and the configured secrets (PROFILER_SECRET), in any text we
//   keep (field values, header values, the URL, error messages, stack traces).

import type { Config } from '../config.js'
import { BoundedMemo } from './bounded-memo.js'

export const REDACTED = '[redacted]'
const REDACTED_IN_URL = encodeURIComponent(REDACTED)
/** How a database URL shows its password (lib/postgres/url.ts): a value already masked, left as it is. */
export const URL_PASSWORD_MASK = '***'

const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token', 'x-csrf-token',
  // Carries the profiler's secret (plugins/profiler/collect/sampling.ts).
  'x-profiler-keep']
// "auth" but not "author"/"authority" (authorization is listed on its own).
const SECRET_NAME = /pass(word|wd|phrase)?|pwd|secret|token|api[-_ ]?key|authori[sz]ation|auth(?!or)|credential|cookie|session[-_]?id|^pin$|cvv|card[-_]?number/i
const MAX_DEPTH = 32
const NONE: ReadonlySet<string> = new Set()
/** Values a deep copy visits at most; 10,000 is far above any body of ours (one field). */
const MAX_FIELDS = 10_000
const BEYOND_FIELDS = `[redacted: beyond the ${MAX_FIELDS}-value scan limit]`
/** A value after the part of a copy's JSON that is kept (fieldsWithin): never in what is stored. */
const BEYOND_KEPT = '[redacted: beyond the kept preview]'

/** What a copy may still visit: values, and characters of JSON (strings and keys) before what it writes is past what is kept. */
interface Budget { left: number, chars: number }

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
// A name may hold '+' (a space in a query string: `my+password=`).
const PAIR = /(?<=^|[?&\s;,])([\w.%[\]+-]+)=([^&\s"'#<>,;]*)/.source
// A URL's user info with a password, any scheme: the password runs to the last '@' before a space
// (an unencoded '/', '#', '?' or '@' in it must not end it early). Bounded: linear in the text.
const USER_INFO = /(?<![\w+.-])[a-zA-Z][\w+.-]{0,31}:\/\/[^\s/?#@:]{0,128}:(?=[^\s]{0,256}@)([^\s]{0,256})@/.source

/**
 * One pass finds every value-shaped secret in a text:
 * a JWT (three base64url parts, the first a JSON header), a Bearer credential,
 * a card number (13-19 digits, spaces or dashes allowed, starting 2-6 as issuers' numbers do,
 * checked with Luhn below), and a `name=value` pair (URLs, forms, messages) whose name is secret.
 */
const SECRET_TEXT = new RegExp([JWT, BEARER, CARD, PAIR, USER_INFO].join('|'), 'g')
/** Inside a pair's value (no whitespace there, so no Bearer): JWTs and card numbers. */
const SECRET_IN_VALUE = new RegExp([JWT, CARD].join('|'), 'g')
/** Inside a pair's value, the names of nested pairs (`a=password=x`): a name run right before an '='. */
const NESTED_NAME = /(?<![\w.%[\]+-])([\w.%[\]+-]+)=/g

const CARD_DIGITS_MIN = 13

/** Whether the pair whose '=' is at `at` in a text is one the full scan would keep as it is. */
type PlainPair = (text: string, at: number) => boolean

/**
 * A cheap scan first (most texts hold no secret, and a regular expression costs ten times more):
 * whether the text has an '=' (but those `plainPair` says the full scan keeps), "eyJ", "earer", a
 * '://' with an '@' after it, or 13 digits in a row (spaces and dashes allowed).
 */
function mayHoldSecret (text: string, plainPair?: PlainPair): boolean {
  let digits = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      if (++digits >= CARD_DIGITS_MIN) return true
    } else if (c === 61) { // '='
      if (plainPair === undefined || !plainPair(text, i)) return true
      digits = 0
    } else if (c === 58 && text.startsWith('://', i)) {
      // A URL's user info needs an '@' after it (USER_INFO): without one, a URL alone (the
      // profiler's own X-Debug-Token-Link, a Referer) is no reason for the full scan.
      if (text.indexOf('@', i) !== -1) return true
      digits = 0
    } else if (c !== 32 && c !== 45) { // a space or a dash may separate a card number's digits
      digits = 0
      if (c === 101 && (text.startsWith('eyJ', i) || text.startsWith('earer', i))) return true
    }
  }
  return false
}

/** The most digits and dots a pair's value may have and be kept without the full scan: no card number fits. */
const MAX_PLAIN_VALUE = CARD_DIGITS_MIN - 1
/** The ASCII characters that end a pair's value (PAIR's `[^&\s"'#<>,;]`): & space tab LF CR " ' # < > , ; */
const ENDS_VALUE: ReadonlySet<number> = new Set([38, 32, 9, 10, 13, 34, 39, 35, 60, 62, 44, 59])
/** A character of a pair's name (PAIR's and NESTED_NAME's `[\w.%[\]+-]`). */
const isNameChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 37 || c === 91 || c === 93 || c === 43 || c === 45

/**
 * For the '=' at `at`: '' when the pair's value is empty (the full scan keeps such a pair whatever
 * its name), the pair's name (the run of name characters before the '=', as PAIR takes it) when its
 * value is a number of at most MAX_PLAIN_VALUE digits and dots (a value that holds no secret), else
 * null. Server-Timing's `dur=0.062;desc="2 queries"`, new in every response, is such a text.
 */
function plainPairName (text: string, at: number): string | null {
  let end = at + 1
  for (; end < text.length; end++) {
    const c = text.charCodeAt(end)
    if (ENDS_VALUE.has(c)) break
    if (!((c >= 48 && c <= 57) || c === 46) || end - at > MAX_PLAIN_VALUE) return null
  }
  if (end === at + 1) return ''
  let start = at
  while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--
  return text.slice(start, at)
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

/**
 * A query-string name or value as the server reads it: '+' is a space and every run of valid
 * escapes is decoded; a malformed escape is kept as written (it cannot hide a name either way).
 */
export function decodeQueryText (raw: string): string {
  const spaced = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw
  if (!spaced.includes('%')) return spaced
  return spaced.replace(/(?:%[0-9a-f]{2})+/gi, run => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run // bytes that are not UTF-8
    }
  })
}

/** Whether a (decoded) name says it holds a secret: the built-in rule, for fields, query parameters and headers alike. */
export function isSecretName (name: string): boolean {
  return SECRET_NAME.test(name)
}

const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|/-]/g

/**
 * A pattern that finds `value` in a text as written, percent-encoded in any mix (hex digits in
 * either case), or with '+' for a space. Each character is a fixed set of spellings that start
 * differently (but for a '%' in the value itself), so a match attempt dies within a step of where it
 * differs: time linear in the text, the value's length a constant factor.
 */
function spellingsOf (value: string): RegExp {
  const encoder = new TextEncoder()
  const characters = [...value].map(character => {
    const escaped = [...encoder.encode(character)].map(byte => `%${byte.toString(16).padStart(2, '0')}`).join('')
    const spellings = [character.replace(REGEXP_SPECIAL, '\\$&'), escaped]
    if (character === ' ') spellings.push('\\+')
    return `(?:${spellings.join('|')})`
  })
  return new RegExp(characters.join(''), 'gi')
}

/**
 * The first `limit` characters of a text, cut back to the last separator (whitespace, &, ;, ,) within
 * CUT_LOOKBACK characters of it, so that a secret straddling the cut is dropped, not kept in part.
 */
export function cutAtSeparator (text: string, limit = MAX_SCAN_CHARS): string {
  for (let i = Math.min(limit, text.length) - 1; i >= limit - CUT_LOOKBACK && i >= 0; i--) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 38 || c === 59 || c === 44) return text.slice(0, i + 1)
  }
  return text.slice(0, limit)
}

function beyondScanMarker (characters: number): string {
  return `[redacted: ${characters} characters beyond the ${MAX_SCAN_CHARS}-character scan limit]`
}

export interface RedactionRules {
  /** Header names redacted on top of the built-in ones. */
  headers?: string[]
  /** Field-name fragments redacted on top of the built-in ones (case-insensitive). */
  fields?: string[]
  /** Secret values (PROFILER_SECRET) replaced wherever they appear, under any name, in any spelling of a URL. */
  values?: string[]
}

/** What the profiles and the log lines redact on top of the built-in rules: the configured names, and PROFILER_SECRET's value. */
export function redactionRules (config: Pick<Config, 'profilerRedactHeaders' | 'profilerRedactFields' | 'profilerSecret'>): RedactionRules {
  return {
    headers: config.profilerRedactHeaders,
    fields: config.profilerRedactFields,
    values: config.profilerSecret === null ? [] : [config.profilerSecret]
  }
}

/**
 * The writer thread's memos (RedactorOptions.memo): the texts that needed the full scan and the
 * names judged, ~10k of each. Longer texts are scanned each time; the character bounds hold the
 * memo of texts under ~2 MiB and that of names under ~256 KiB (UTF-16), whatever the inputs.
 */
export const TEXT_MEMO = { entries: 10_000, chars: 1024 * 1024, maxKeyChars: 2048 }
export const NAME_MEMO = { entries: 10_000, chars: 128 * 1024, maxKeyChars: 128 }
/** The header names judged (a request names a few dozen at most; each entry holds the name three times). */
export const HEADER_MEMO = { entries: 2_000, chars: 128 * 1024, maxKeyChars: 128 }

/** A header's name as the rules judge it: as stored (configured secret values replaced), lower-cased, and whether its value is secret (unless kept). */
interface JudgedHeader { stored: string, lower: string, secret: boolean }

export interface RedactorOptions {
  /**
   * Remember what was judged (bounded: TEXT_MEMO, NAME_MEMO, HEADER_MEMO), for a redactor that sees the same
   * texts over and over (the writer thread's). The output is the same with or without: a text's
   * redaction depends on the text and the rules alone.
   */
  memo?: boolean
}

export class Redactor {
  private readonly secretHeaders: Set<string>
  private readonly extraFields: string[]
  private readonly secretValues: RegExp[]
  private readonly scanned: BoundedMemo<string> | null
  private readonly names: BoundedMemo<boolean> | null
  private readonly headerNames: BoundedMemo<JudgedHeader> | null

  constructor (rules: RedactionRules = {}, options: RedactorOptions = {}) {
    this.secretHeaders = new Set([...SECRET_HEADERS, ...(rules.headers ?? []).map(name => name.toLowerCase())])
    this.extraFields = (rules.fields ?? []).map(name => name.toLowerCase())
    this.secretValues = (rules.values ?? []).filter(value => value !== '').map(spellingsOf)
    this.scanned = options.memo === true ? new BoundedMemo<string>(TEXT_MEMO, value => value.length) : null
    this.names = options.memo === true ? new BoundedMemo<boolean>(NAME_MEMO) : null
    this.headerNames = options.memo === true ? new BoundedMemo<JudgedHeader>(HEADER_MEMO, judged => judged.stored.length + judged.lower.length) : null
  }

  /** Entries and characters the memos hold now (RedactorOptions.memo; zero without). */
  memoSize (): { entries: number, chars: number } {
    return {
      entries: (this.scanned?.size ?? 0) + (this.names?.size ?? 0) + (this.headerNames?.size ?? 0),
      chars: (this.scanned?.chars ?? 0) + (this.names?.chars ?? 0) + (this.headerNames?.chars ?? 0)
    }
  }

  isSecretName (name: string): boolean {
    return this.names === null ? this.judgeName(name) : this.names.get(name, this.judgeName)
  }

  private readonly judgeName = (name: string): boolean => {
    if (isSecretName(name)) return true
    if (this.extraFields.length === 0) return false
    const lower = name.toLowerCase()
    return this.extraFields.some(fragment => lower.includes(fragment))
  }

  /**
   * A text with every value-shaped secret, and the value of every secret-named pair, replaced.
   * Linear in the text, no recursion; beyond MAX_SCAN_CHARS the text is replaced by a marker.
   */
  text (text: string): string {
    const masked = this.withoutSecretValues(text, REDACTED)
    if (masked.length <= MAX_SCAN_CHARS) return this.scan(masked)
    const kept = cutAtSeparator(masked)
    return this.scan(kept) + beyondScanMarker(masked.length - kept.length)
  }

  /** The text with every spelling of a configured secret value replaced by `marker`. */
  private withoutSecretValues (text: string, marker: string): string {
    let out = text
    for (const pattern of this.secretValues) out = out.replace(pattern, marker)
    return out
  }

  /** A pair the full scan keeps: no value, or a short number under a name that is no secret's (plainPairName). */
  private readonly plainPair = (text: string, at: number): boolean => {
    const name = plainPairName(text, at)
    return name !== null && (name === '' || !this.isSecretName(decodeQueryText(name)))
  }

  private scan (text: string): string {
    if (!mayHoldSecret(text, this.plainPair)) return text
    return this.scanned === null ? this.scanFully(text) : this.scanned.get(text, this.scanFully)
  }

  /** The text with every value-shaped secret and secret-named pair's value replaced (the one pass of SECRET_TEXT). */
  private readonly scanFully = (text: string): string => {
    return text.replace(SECRET_TEXT, (match: string, name: string | undefined, value: string | undefined, password: string | undefined) => {
      if (password !== undefined) {
        // As a database URL shows it (lib/postgres/url.ts): the user kept, the password ***.
        return password === '' ? match : `${match.slice(0, match.length - password.length - 1)}${URL_PASSWORD_MASK}@`
      }
      if (name !== undefined) {
        // A pair's whole value goes when its name is secret or the value holds a secret.
        if (value === undefined || value === '' || value === REDACTED_IN_URL || value === URL_PASSWORD_MASK) return match
        return this.isSecretName(decodeQueryText(name)) || this.valueHoldsSecret(value) ? `${name}=${REDACTED_IN_URL}` : match
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
      if (this.isSecretName(decodeQueryText(match[1] ?? ''))) return true
    }
    return false
  }

  /**
   * The URL with secret-named query values, value-shaped secrets and configured secret values
   * replaced; the rest kept byte for byte. The query string is judged pair by pair, each name and
   * value once decoded as the server decodes them (`my+password=`, `api%20key=`, `4111%201111...`).
   */
  url (url: string): string {
    const redacted = this.text(this.withoutSecretValues(url, REDACTED_IN_URL))
    const mark = redacted.indexOf('?')
    if (mark === -1) return redacted
    return `${redacted.slice(0, mark)}?${this.pairs(redacted.slice(mark + 1))}`
  }

  /** A form body (application/x-www-form-urlencoded) as text: judged as url() judges a query string. */
  form (text: string): string {
    return this.pairs(this.text(this.withoutSecretValues(text, REDACTED_IN_URL)))
  }

  /** A query string judged pair by pair, each name and value once decoded. */
  private pairs (query: string): string {
    return query.split('&').map(pair => {
      const equals = pair.indexOf('=')
      if (equals === -1) return pair
      const rawValue = pair.slice(equals + 1)
      if (rawValue === '' || rawValue === REDACTED_IN_URL || rawValue === URL_PASSWORD_MASK) return pair
      const value = decodeQueryText(rawValue)
      const secret = this.isSecretName(decodeQueryText(pair.slice(0, equals))) || this.text(value) !== value
      return secret ? `${pair.slice(0, equals)}=${REDACTED_IN_URL}` : pair
    }).join('&')
  }

  /**
   * Headers with the value of every secret header replaced: the built-in list, PROFILER_REDACT_HEADERS,
   * and any name the secret-name rule of fields says holds a secret (`X-Access-Token`, `X-Db-Password`).
   * `kept` names are never redacted by name (the profiler's own X-Debug-Token on responses).
   */
  headers (headers: Record<string, unknown>, kept: ReadonlySet<string> = NONE): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    // Object.keys, not Object.entries: no [key, value] array per header (shaping runs per profile).
    for (const name of Object.keys(headers)) {
      const value = headers[name]
      if (value === undefined) continue
      const judged = this.headerNames === null ? this.judgeHeader(name) : this.headerNames.get(name, this.judgeHeader)
      // A string is a value of one field: fields() would judge it as text() does.
      out[judged.stored] = judged.secret && !kept.has(judged.lower) ? REDACTED : typeof value === 'string' ? this.text(value) : this.fields(value)
    }
    return out
  }

  /** What the rules say of a header's name, whatever its value (remembered with the memo: the same few names come in every request). */
  private readonly judgeHeader = (name: string): JudgedHeader => {
    const lower = name.toLowerCase()
    return { stored: this.withoutSecretValues(name, REDACTED), lower, secret: this.secretHeaders.has(lower) || this.isSecretName(name) }
  }

  /**
   * A deep copy in which secret-named fields and value-shaped secrets are replaced, of what
   * JSON.stringify would write: a value with a toJSON method (a Date, a URL, a Buffer, any class's)
   * is copied as what that method returns (a URL's text, and so its password, is then judged as any
   * text), a Buffer's bytes as text as well; enumerable own fields alone would show a Date or a URL
   * as `{}`, a Buffer as one field per byte, and pass on an own toJSON that returns a secret. At
   * most MAX_FIELDS values are visited (a 1 MiB body of 35,000 fields took half a second): the
   * values beyond are replaced by a marker, never kept in clear.
   */
  fields (value: unknown): unknown {
    return this.copy(value, 0, { left: MAX_FIELDS, chars: Infinity })
  }

  /**
   * fields() for a value whose JSON is kept up to its first `maxChars` characters only (a body's
   * preview: capture/body-preview.ts), with the same JSON up to there. Once the copy's JSON is
   * known to reach past `maxChars` (its strings and keys alone do, counted in the order
   * JSON.stringify writes them), every value after is a marker, neither scanned nor copied: a
   * 1 MiB body was copied and scanned whole for its 64 KiB preview. Only a key that a configured
   * secret value in a later key turns into its name may end the kept part sooner: markers, never a value in clear.
   */
  fieldsWithin (value: unknown, maxChars: number): unknown {
    return this.copy(value, 0, { left: MAX_FIELDS, chars: maxChars })
  }

  private copy (value: unknown, depth: number, budget: Budget): unknown {
    if (--budget.left < 0) return BEYOND_FIELDS
    if (budget.chars < 0) return BEYOND_KEPT
    if (typeof value === 'string') {
      const text = this.text(value)
      budget.chars -= text.length + 2
      return text
    }
    // Below 2e12 no integer has a card number's 13 to 19 digits: most numbers are never printed.
    if (typeof value === 'number') return this.isSecretNumber(value) ? REDACTED : value
    if (value === null || typeof value !== 'object') return value
    if (depth >= MAX_DEPTH) return '[too deep]'
    if (Buffer.isBuffer(value)) return this.buffer(value)
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (typeof toJSON === 'function') return this.copy(toJSON.call(value, ''), depth + 1, budget)
    if (Array.isArray(value)) return value.map(item => this.copy(item, depth + 1, budget))
    const out: Record<string, unknown> = {}
    const object = value as Record<string, unknown>
    for (const key of Object.keys(object)) {
      const name = this.withoutSecretValues(key, REDACTED)
      // A key JSON would not write where it was met (`__proto__` sets the prototype; a renamed key
      // may land on another's place): no cut from here on, the copy is whole as fields() makes it.
      if (name === '__proto__' || name !== key) budget.chars = Infinity
      const copied = this.isSecretName(key) ? REDACTED : this.copy(object[key], depth + 1, budget)
      // JSON writes a key only with a value it can write.
      if (copied !== undefined && typeof copied !== 'function' && typeof copied !== 'symbol') budget.chars -= name.length + 3
      out[name] = copied
    }
    return out
  }

  /**
   * What fields() gives for a value JSON.parse has just made and that nothing else holds (a
   * response's body): the same, redacted in place, without a second copy of every value it holds.
   * An object with a key that the copy would write otherwise (a configured secret value in it, or
   * `__proto__`, which an assignment does not create) is copied as fields() copies it.
   */
  parsedJson (value: unknown): unknown {
    return this.inPlace(value, 0, { left: MAX_FIELDS, chars: Infinity })
  }

  private inPlace (value: unknown, depth: number, budget: Budget): unknown {
    if (value === null || typeof value !== 'object') return this.copy(value, depth, budget)
    const object = value as Record<string, unknown>
    const keys = Array.isArray(value) ? null : Object.keys(object)
    if (keys !== null && !keys.every(this.keptAsItIs)) return this.copy(value, depth, budget)
    if (--budget.left < 0) return BEYOND_FIELDS
    if (depth >= MAX_DEPTH) return '[too deep]'
    if (keys === null) {
      const array = value as unknown[]
      for (let i = 0; i < array.length; i++) array[i] = this.inPlace(array[i], depth + 1, budget)
      return array
    }
    for (const key of keys) object[key] = this.isSecretName(key) ? REDACTED : this.inPlace(object[key], depth + 1, budget)
    return object
  }

  /** Whether a key is written as it is by a copy (copy(): no configured secret value in it, and an assignment creates it). */
  private readonly keptAsItIs = (key: string): boolean => key !== '__proto__' && (this.secretValues.length === 0 || this.withoutSecretValues(key, REDACTED) === key)

  /** A Buffer as JSON writes it (its bytes as numbers), or with `data` redacted when its bytes, read as UTF-8 text, hold a secret. */
  private buffer (value: Buffer): unknown {
    const text = value.toString('utf8', 0, Math.min(value.length, MAX_SCAN_CHARS))
    return { type: 'Buffer', data: value.length > MAX_SCAN_CHARS || this.text(text) !== text ? REDACTED : [...value] }
  }

  /** A card number, or a configured secret value written as a JSON number. */
  private isSecretNumber (value: number): boolean {
    if (Number.isInteger(value) && value >= 2e12 && /^[2-6]\d{12,18}$/.test(String(value)) && isCardNumber(String(value))) return true
    return this.secretValues.length > 0 && this.withoutSecretValues(String(value), REDACTED) !== String(value)
  }
}
