// run-suite: shares a process
// The project's own reader of JSON's grammar (lib/json-syntax-error.ts), which says where and why
// a JSON body or MCP line is not JSON: over generated text it refuses exactly what JSON.parse
// refuses, and the place it names is the first character that cannot be there (a control
// character put into JSON text; the end of a cut one).
import fc from 'fast-check'
import t from 'tap'
import { findJsonSyntaxError } from '../../lib/json-syntax-error.js'
import { readMessage } from '../../plugins/profiler/cli/mcp-message.js'
import { hostileText } from '../helpers/hostile.js'

const parses = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** JSON text, compact or indented (the whitespace JSON allows). */
const jsonText = fc.tuple(fc.jsonValue(), fc.constantFrom(undefined, 2, '\t')).map(([value, indent]) => JSON.stringify(value, null, indent))

/** JSON text with one piece of JSON's own syntax (or a near miss) put in, taken out or swapped somewhere. */
const JSON_PIECES = ['{', '}', '[', ']', ',', ':', '"', '\\', '\\u00', '-', '.', 'e', '+', '0', '1', 'true', 'nul', ' ', '\n', '\u0000', '\u00a0', 'x', "'"]
const damagedJson = fc.tuple(jsonText, fc.nat(), fc.nat(3), fc.constantFrom(...JSON_PIECES)).map(([text, at, removed, piece]) => {
  const i = at % (text.length + 1)
  return text.slice(0, i) + piece + text.slice(i + removed)
})

t.test('it refuses exactly what JSON.parse refuses', async t => {
  fc.assert(fc.property(fc.oneof(jsonText, damagedJson, hostileText(60, 4), fc.string({ maxLength: 40 })), text => {
    const error = findJsonSyntaxError(text)
    if ((error === undefined) !== parses(text)) return false
    return error === undefined || (error.offset >= 0 && error.offset <= text.length)
  }), { numRuns: 3000 })
  t.pass()
})

t.test('a control character put anywhere in JSON text is where it stops being JSON', async t => {
  fc.assert(fc.property(jsonText, fc.nat(), fc.integer({ min: 0, max: 0x1f }).filter(c => c !== 0x09 && c !== 0x0a && c !== 0x0d), (text, at, code) => {
    const i = at % (text.length + 1)
    const broken = text.slice(0, i) + String.fromCharCode(code) + text.slice(i)
    const before = broken.slice(0, i)
    const line = before.split('\n').length
    const column = i - before.lastIndexOf('\n')
    const error = findJsonSyntaxError(broken)
    return error !== undefined && error.offset === i && error.line === line && error.column === column &&
      error.problem.endsWith(`found U+${code.toString(16).toUpperCase().padStart(4, '0')}`)
  }), { numRuns: 2000 })
  t.pass()
})

t.test('JSON text cut short stops being JSON where it ends', async t => {
  fc.assert(fc.property(jsonText, fc.nat(), (text, at) => {
    const cut = text.slice(0, at % text.length)
    if (parses(cut)) return true
    const error = findJsonSyntaxError(cut)
    return error !== undefined && error.offset === cut.length && error.problem.endsWith('found the end of the text')
  }), { numRuns: 2000 })
  t.pass()
})

t.test('what each message says', async t => {
  const cases: Array<[string, number, number, string]> = [
    ['', 1, 1, 'expected a value, found the end of the text'],
    ['{"password": hunter2}', 1, 14, 'expected a value, found \'h\''],
    ['{\n  "code": "ADV1",\n  oops\n}', 3, 3, 'expected a property name in double quotes, found \'o\''],
    ['{"code": "AD', 1, 13, 'expected the closing \'"\' of a string, found the end of the text'],
    ['{"a" 1}', 1, 6, 'expected \':\' after a property name, found \'1\''],
    ['{"a": 1 "b": 2}', 1, 9, 'expected \',\' or \'}\' after a property value, found \'"\''],
    ['[1 2]', 1, 4, 'expected \',\' or \']\' after an array element, found \'2\''],
    ['[1,]', 1, 4, 'expected a value, found \']\''],
    ['{"a":1,}', 1, 8, 'expected a property name in double quotes, found \'}\''],
    ['{} {}', 1, 4, 'expected the end of the text after the JSON value, found \'{\''],
    ['01', 1, 2, 'expected the end of the text after the JSON value, found \'1\''],
    ['-x', 1, 2, 'expected a digit, found \'x\''],
    ['1.e3', 1, 3, 'expected a digit after a decimal point, found \'e\''],
    ['1e+', 1, 4, 'expected a digit in an exponent, found the end of the text'],
    ['"\\x"', 1, 3, 'expected an escape (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u) after a backslash, found \'x\''],
    ['"\\u12G4"', 1, 6, 'expected four hexadecimal digits after \\u, found \'G\''],
    ['"a\tb"', 1, 3, 'expected a string\'s characters (a control character must be escaped), found U+0009'],
    ['[tru]', 1, 5, 'expected true, found \']\''],
    ['{"a": nul', 1, 10, 'expected null, found the end of the text'],
    ['[\u00a0]', 1, 2, 'expected a value, found U+00A0'],
    ['["😀", 😀]', 1, 8, 'expected a value, found U+1F600']
  ]
  for (const [text, line, column, problem] of cases) t.match(findJsonSyntaxError(text), { line, column, problem }, JSON.stringify(text))
  t.equal(findJsonSyntaxError(' {"a": [1, -2.5e-3, true, false, null, "\\u00e9\\n"], "b": {}} '), undefined, 'JSON')
})

t.test('any depth of nesting is read without recursion', async t => {
  t.match(findJsonSyntaxError('['.repeat(1_000_000)), { offset: 1_000_000, problem: 'expected a value, found the end of the text' })
  t.equal(findJsonSyntaxError('['.repeat(100_000) + ']'.repeat(100_000)), undefined)
})

t.test('an MCP line that is not JSON: a parse error that says where, quoting one character of the line at most', async t => {
  t.same(readMessage('{"jsonrpc": "2.0", "params": {"token": s3cr3t}}'), {
    error: { id: null, code: -32700, message: 'Parse error: the line is not JSON (column 40: expected a value, found \'s\')' }
  })
})
