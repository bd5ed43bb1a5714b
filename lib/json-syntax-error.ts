// Where a text stops being JSON, and what was expected there: read from the grammar of RFC 8259
// by this module, for the error messages of a JSON body or an MCP line that JSON.parse refused.
// The parser's own message is not read: its wording (and whether it says a position at all) is the
// engine's and changes between versions, and some of it quotes a piece of the text, which may hold
// a secret. Only a single character of the text is ever quoted here.

/** The first place a text is not JSON. */
export interface JsonSyntaxError {
  /** Index in the text (UTF-16 code units) of the first character that cannot be there; the text's length when it ends too soon. */
  offset: number
  /** 1-based line of `offset` (lines end with "\n"). */
  line: number
  /** 1-based column of `offset` in its line, in UTF-16 code units (as JavaScript counts a string's length). */
  column: number
  /** What was expected there and what was found: "expected ',' or '}' after a property value, found 'o'". */
  problem: string
}

/** What the reader expects next. */
const VALUE = 0
const PROPERTY_NAME = 1
const AFTER_VALUE = 2

const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
/** The characters that may follow a backslash in a string (besides u). */
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't'])

/** The character at `offset` as a message names it: visible ASCII quoted, anything else by its code point. */
function found (text: string, offset: number): string {
  if (offset >= text.length) return 'the end of the text'
  const code = text.codePointAt(offset) ?? 0
  if (code >= 0x21 && code <= 0x7e) return `'${String.fromCharCode(code)}'`
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

function located (text: string, offset: number, expected: string): JsonSyntaxError {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { offset, line, column: offset - lineStart + 1, problem: `${expected}, found ${found(text, offset)}` }
}

/**
 * The first syntax error of `text` as JSON, or undefined when it is JSON (JSON.parse would take it).
 * Linear, and iterative: any depth of nesting is read without recursion.
 */
export function findJsonSyntaxError (text: string): JsonSyntaxError | undefined {
  const length = text.length
  /** The open containers, innermost last: true for an object, false for an array. */
  const open: boolean[] = []
  let i = 0
  let expecting: number = VALUE
  const fail = (expected: string): JsonSyntaxError => located(text, i, expected)

  /** Reads the string starting at i (a '"'); undefined when it is one, i after its closing quote. */
  const readString = (): JsonSyntaxError | undefined => {
    i++
    for (;;) {
      if (i >= length) return fail('expected the closing \'"\' of a string')
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        i++
        return undefined
      }
      if (c < 0x20) return fail('expected a string\'s characters (a control character must be escaped)')
      if (c !== 0x5c) {
        i++
        continue
      }
      i++
      if (text[i] === 'u') {
        i++
        for (const end = i + 4; i < end; i++) if (!isHexDigit(text.charCodeAt(i))) return fail('expected four hexadecimal digits after \\u')
      } else if (SIMPLE_ESCAPES.has(text[i] ?? '')) {
        i++
      } else {
        return fail('expected an escape (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u) after a backslash')
      }
    }
  }

  /** Reads the number starting at i ('-' or a digit). */
  const readNumber = (): JsonSyntaxError | undefined => {
    if (text[i] === '-') i++
    if (text[i] === '0') i++
    else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++
    else return fail('expected a digit')
    if (text[i] === '.') {
      i++
      if (!isDigit(text.charCodeAt(i))) return fail('expected a digit after a decimal point')
      while (isDigit(text.charCodeAt(i))) i++
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++
      if (text[i] === '+' || text[i] === '-') i++
      if (!isDigit(text.charCodeAt(i))) return fail('expected a digit in an exponent')
      while (isDigit(text.charCodeAt(i))) i++
    }
    return undefined
  }

  /** Reads true, false or null, starting at i. */
  const readLiteral = (literal: string): JsonSyntaxError | undefined => {
    for (const character of literal) {
      if (text[i] !== character) return fail(`expected ${literal}`)
      i++
    }
    return undefined
  }

  for (;;) {
    while (i < length && isWhitespace(text.charCodeAt(i))) i++
    const c = text[i]
    let error: JsonSyntaxError | undefined
    if (expecting === VALUE) {
      if (c === '{' || c === '[') {
        i++
        open.push(c === '{')
        expecting = c === '{' ? PROPERTY_NAME : VALUE
        while (i < length && isWhitespace(text.charCodeAt(i))) i++
        // An empty object or array.
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++
          open.pop()
          expecting = AFTER_VALUE
        }
        continue
      }
      if (c === '"') error = readString()
      else if (c === '-' || isDigit(text.charCodeAt(i))) error = readNumber()
      else if (c === 't') error = readLiteral('true')
      else if (c === 'f') error = readLiteral('false')
      else if (c === 'n') error = readLiteral('null')
      else error = fail('expected a value')
      if (error !== undefined) return error
      expecting = AFTER_VALUE
    } else if (expecting === PROPERTY_NAME) {
      if (c !== '"') return fail('expected a property name in double quotes')
      error = readString()
      if (error !== undefined) return error
      while (i < length && isWhitespace(text.charCodeAt(i))) i++
      if (text[i] !== ':') return fail('expected \':\' after a property name')
      i++
      expecting = VALUE
    } else {
      const inObject = open.at(-1)
      if (inObject === undefined) return i < length ? fail('expected the end of the text after the JSON value') : undefined
      if (c === ',') {
        i++
        expecting = inObject ? PROPERTY_NAME : VALUE
      } else if (c === (inObject ? '}' : ']')) {
        i++
        open.pop()
      } else {
        return fail(inObject ? 'expected \',\' or \'}\' after a property value' : 'expected \',\' or \']\' after an array element')
      }
    }
  }
}
