// The compact text a profile's panels are stored as (issue 38): what JSON.stringify would give,
// read back as JSON.parse would, in about a third of the bytes. A panel row of ~2.4 KB of JSON
// took a 4 KiB page to itself (a table leaf keeps at most U-35 bytes of a record locally); this
// one shares its page with three or four others.
//
// Where the bytes go: object keys (a profile holds ~20 distinct shapes, repeated: a timeline's
// items, a statement, a log line), repeated strings (hook types, plugin names, SQL), numbers with
// microsecond precision written as decimals. So:
// - an object names its keys once a record (a "shape"), or by a number into STATIC_SHAPES;
// - a string repeated in a record is a number into the record's own table of strings, and a
//   string every profile holds (stored-dictionary.ts) a number into STATIC_STRINGS;
// - integers, and numbers with at most three decimals (ms to the microsecond), are base-32 digits.
// Text, not bytes: both engines keep it in the same TEXT column as the JSON of older profiles,
// which starts with '{'; this starts with FORMAT_PREFIX and its version. Only printable ASCII
// carries the structure; a string is copied as it is, unless it holds a NUL or a UTF-16 surrogate
// (PostgreSQL refuses NUL in text; a lone surrogate would not survive UTF-8), then as JSON.
import { STATIC_SHAPES, STATIC_STRINGS } from './stored-dictionary.js'

/** The first character of a compact record; the second is its version. */
const FORMAT_PREFIX = '~'
/** Version 1: this file's grammar with stored-dictionary.ts's lists (which only ever grow at their end). */
const VERSION = '1'
/** Strings shorter than this are written again rather than referred to (a reference takes 2 characters or more). */
const MIN_SHARED = 3

const staticStrings = new Map<string, number>(STATIC_STRINGS.map((text, index) => [text, index]))
/** A key list as one string, or null when a key holds a NUL (then the join could name two lists). */
function shapeKey (keys: readonly string[]): string | null {
  for (const key of keys) if (key.includes('\u0000')) return null
  return `${keys.length}\u0000${keys.join('\u0000')}`
}
const staticShapes = new Map<string | null, number>(STATIC_SHAPES.map((keys, index) => [shapeKey(keys), index]))

// Value tags.
const NULL = 'n'
const TRUE = 't'
const FALSE = 'f'
const UINT = 'i'
const NEG_INT = 'j'
const MILLI = 'm'
const NEG_MILLI = 'M'
const DOUBLE = 'd'
const EMPTY = 'e'
const LITERAL = 's'
const JSON_STRING = 'J'
const RECORD_STRING = 'r'
const STATIC_STRING = 'g'
const ARRAY = 'a'
const NEW_SHAPE = 'o'
const RECORD_SHAPE = 'O'
const STATIC_SHAPE = 'p'

/** Base-32 digits, least significant first: '0'..'O' ends a number, 'P'..'o' is a digit with more to come. */
const LAST_DIGIT = 0x30
const MORE_DIGIT = 0x50
const DIGIT_CHARS = Array.from({ length: 64 }, (_, i) => String.fromCharCode(i < 32 ? LAST_DIGIT + i : MORE_DIGIT + i - 32))

function digits (n: number): string {
  let text = ''
  while (n >= 32) {
    text += DIGIT_CHARS[32 + (n % 32)] as string
    n = Math.floor(n / 32)
  }
  return text + (DIGIT_CHARS[n] as string)
}

/** A NUL, or a surrogate (paired or not): the string goes as JSON. */
const UNSAFE = /[\0\uD800-\uDFFF]/

class Encoder {
  out = ''
  private readonly strings = new Map<string, number>()
  private readonly shapes = new Map<string, number>()
  private shapeCount = 0

  string (text: string): void {
    if (text.length === 0) {
      this.out += EMPTY
      return
    }
    const known = staticStrings.get(text)
    if (known !== undefined) {
      this.out += STATIC_STRING + digits(known)
      return
    }
    const seen = this.strings.get(text)
    if (seen !== undefined) {
      this.out += RECORD_STRING + digits(seen)
      return
    }
    if (text.length >= MIN_SHARED) this.strings.set(text, this.strings.size)
    if (UNSAFE.test(text)) {
      const json = JSON.stringify(text)
      this.out += JSON_STRING + digits(json.length) + json
    } else {
      this.out += LITERAL + digits(text.length) + text
    }
  }

  number (n: number): void {
    if (!Number.isFinite(n)) {
      this.out += NULL
      return
    }
    if (Number.isSafeInteger(n)) {
      this.out += n < 0 ? NEG_INT + digits(-n) : UINT + digits(n)
      return
    }
    const milli = Math.round(n * 1000)
    if (Number.isSafeInteger(milli) && milli / 1000 === n) {
      this.out += milli < 0 ? NEG_MILLI + digits(-milli) : MILLI + digits(milli)
      return
    }
    const text = String(n)
    this.out += DOUBLE + digits(text.length) + text
  }

  /** A prepared value (see prepared()) that JSON writes (present()). */
  value (value: unknown): void {
    switch (typeof value) {
      case 'string': this.string(value); return
      case 'number': this.number(value); return
      case 'boolean': this.out += value ? TRUE : FALSE; return
      case 'bigint': throw new TypeError('Do not know how to serialize a BigInt')
    }
    if (value === null) {
      this.out += NULL
    } else if (Array.isArray(value)) {
      this.out += ARRAY + digits(value.length)
      for (let i = 0; i < value.length; i++) {
        const item = prepared(value[i], String(i))
        if (present(item)) this.value(item)
        else this.out += NULL
      }
    } else {
      this.object(value as Record<string, unknown>)
    }
  }

  private object (object: Record<string, unknown>): void {
    const keys: string[] = []
    const values: unknown[] = []
    for (const key of Object.keys(object)) {
      const value = prepared(object[key], key)
      if (!present(value)) continue
      keys.push(key)
      values.push(value)
    }
    const joined = shapeKey(keys)
    const known = joined === null ? undefined : staticShapes.get(joined)
    const seen = known === undefined && joined !== null ? this.shapes.get(joined) : undefined
    if (known !== undefined) {
      this.out += STATIC_SHAPE + digits(known)
    } else if (seen !== undefined) {
      this.out += RECORD_SHAPE + digits(seen)
    } else {
      this.out += NEW_SHAPE + digits(keys.length)
      for (const key of keys) this.string(key)
      // Numbered as the decoder numbers every shape it reads; one with a NUL in a key is not looked up again.
      if (joined !== null) this.shapes.set(joined, this.shapeCount)
      this.shapeCount++
    }
    for (const value of values) this.value(value)
  }
}

/** A value as JSON.stringify takes it under `key`: its toJSON() called, a boxed primitive unboxed. */
function prepared (value: unknown, key: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'bigint')) return value
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') value = toJSON.call(value, key)
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf()
  return value
}

/** false: JSON leaves it out (undefined, a function, a symbol); null in an array. */
const present = (value: unknown): boolean => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol'

/** Encodes panels as JSON.stringify would give them, compactly (this file's head). */
export function encodeStored (value: unknown): string {
  const encoder = new Encoder()
  const root = prepared(value, '')
  if (!present(root)) throw new TypeError('The panels are not a value JSON can hold')
  encoder.value(root)
  return FORMAT_PREFIX + VERSION + encoder.out
}

class Decoder {
  at = 2
  private readonly strings: string[] = []
  private readonly shapes: string[][] = []

  constructor (private readonly text: string) {}

  private fail (): never {
    throw new SyntaxError(`A stored record is not valid at character ${this.at}`)
  }

  private count (): number {
    let n = 0
    let scale = 1
    for (;;) {
      const c = this.text.charCodeAt(this.at++)
      if (c >= LAST_DIGIT && c < LAST_DIGIT + 32) return n + (c - LAST_DIGIT) * scale
      if (!(c >= MORE_DIGIT && c < MORE_DIGIT + 32)) this.fail()
      n += (c - MORE_DIGIT) * scale
      scale *= 32
    }
  }

  private chars (length: number): string {
    const end = this.at + length
    if (end > this.text.length) this.fail()
    const chars = this.text.slice(this.at, end)
    this.at = end
    return chars
  }

  private literal (text: string): string {
    if (text.length >= MIN_SHARED) this.strings.push(text)
    return text
  }

  private key (): string {
    const value = this.value()
    if (typeof value !== 'string') this.fail()
    return value
  }

  private object (keys: string[]): Record<string, unknown> {
    const object: Record<string, unknown> = {}
    for (const key of keys) {
      const value = this.value()
      // As JSON.parse makes it: an own property, never the prototype.
      if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
      else object[key] = value
    }
    return object
  }

  value (): unknown {
    const tag = this.text[this.at++]
    switch (tag) {
      case NULL: return null
      case TRUE: return true
      case FALSE: return false
      case UINT: return this.count()
      case NEG_INT: return -this.count()
      case MILLI: return this.count() / 1000
      case NEG_MILLI: return -this.count() / 1000
      case DOUBLE: return Number(this.chars(this.count()))
      case EMPTY: return ''
      case LITERAL: return this.literal(this.chars(this.count()))
      case JSON_STRING: return this.literal(JSON.parse(this.chars(this.count())) as string)
      case RECORD_STRING: return this.strings[this.count()] ?? this.fail()
      case STATIC_STRING: return STATIC_STRINGS[this.count()] ?? this.fail()
      case ARRAY: {
        const length = this.count()
        if (length > this.text.length - this.at) this.fail()
        const array: unknown[] = []
        for (let i = 0; i < length; i++) array.push(this.value())
        return array
      }
      case NEW_SHAPE: {
        const length = this.count()
        if (length > this.text.length - this.at) this.fail()
        const keys: string[] = []
        for (let i = 0; i < length; i++) keys.push(this.key())
        this.shapes.push(keys)
        return this.object(keys)
      }
      case RECORD_SHAPE: return this.object(this.shapes[this.count()] ?? this.fail())
      case STATIC_SHAPE: return this.object((STATIC_SHAPES[this.count()] as string[] | undefined) ?? this.fail())
      default: return this.fail()
    }
  }
}

/** The stored panels, in either form: a compact record (this file), or JSON (stored before it). */
export function decodeStored (stored: string): unknown {
  if (!stored.startsWith(FORMAT_PREFIX)) return JSON.parse(stored)
  if (stored[1] !== VERSION) throw new SyntaxError(`A stored record of an unknown version (${stored.slice(0, 2)})`)
  const decoder = new Decoder(stored)
  const value = decoder.value()
  if (decoder.at !== stored.length) throw new SyntaxError('A stored record has characters after its end')
  return value
}
