// A request body kept as sent, not parsed (refused for its type, its syntax or its size), is
// redacted as text by the Redactor's rules (value-shaped secrets, secret-named `name=value` pairs,
// the configured secret values), with what its syntax tells on top: in JSON-like text the value of
// a secret-named key ("password": "..."), in a form each pair as in a query string, in multipart
// the content of a secret-named part. Malformed or cut short, the text is read as far as it goes;
// each scan is linear in it.
import { boundaryOf, multipartParts } from './multipart-parts.js'
import { cutAtSeparator, REDACTED, type Redactor } from '../../../../lib/redact.js'

const REDACTED_JSON = `"${REDACTED}"`
/** A string's content from after its opening quote: up to its closing quote or the end (a lone backslash too). */
const CONTENT = /(?:[^"\\]|\\[\s\S]?)*/y
/** A key: a string on one line, then a colon. Tried at every quote, whatever the text around it. */
const KEY = /"((?:[^"\\\r\n]|\\.)*)"\s*:\s*/g
/** A value that is neither a string, an object nor an array (a number, a literal, or what a malformed body left unquoted). */
const BARE_VALUE = /[^,}\]\r\n]*/y

/** Where the content of the string opened just before `from` ends: at its closing quote, or the end of the text. */
function contentEnd (text: string, from: number): number {
  CONTENT.lastIndex = from
  CONTENT.test(text)
  return CONTENT.lastIndex
}

/** A key's name: the JSON string decoded, or as written when it does not decode. */
function keyName (content: string): string {
  try {
    return JSON.parse(`"${content}"`) as string
  } catch {
    return content
  }
}

/**
 * Every string's content redacted as text (`"note": "password=..."`: the scan of the whole text
 * needs a separator before a pair's name, and a quote is none). `inside`: the text is read as if it
 * began inside a string, for a malformed body whose stray quote turned strings inside out.
 */
function redactStringContents (redactor: Redactor, text: string, inside: boolean): string {
  let out = ''
  let i = 0
  let open = inside ? 0 : text.indexOf('"')
  while (open !== -1 && i < text.length) {
    const from = inside && i === 0 ? 0 : open + 1
    const end = contentEnd(text, from)
    out += text.slice(i, from) + redactor.text(text.slice(from, end))
    // The closing quote, copied as such (not read as the next opening one).
    i = Math.min(end + 1, text.length)
    out += text.slice(end, i)
    open = text.indexOf('"', i)
  }
  return out + text.slice(i)
}

/** Where the value that starts at `start` ends: a string, an object or an array with all it holds, or a bare word. */
function valueEnd (text: string, start: number): number {
  const first = text.charCodeAt(start)
  if (first === 34) return Math.min(contentEnd(text, start + 1) + 1, text.length)
  if (first !== 123 && first !== 91) {
    BARE_VALUE.lastIndex = start
    BARE_VALUE.test(text)
    return BARE_VALUE.lastIndex
  }
  let depth = 0
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) i = contentEnd(text, i + 1)
    else if (c === 123 || c === 91) depth++
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1
  }
  return text.length
}

/** The value of every secret-named key replaced whole, wherever a key is found (a malformed body is not read as a tree). */
function redactSecretKeyValues (redactor: Redactor, text: string): string {
  let out = ''
  let copied = 0
  KEY.lastIndex = 0
  for (let match = KEY.exec(text); match !== null; match = KEY.exec(text)) {
    if (!redactor.isSecretName(keyName(match[1] ?? ''))) continue
    const start = match.index + match[0].length
    const end = valueEnd(text, start)
    if (end === start) continue
    out += text.slice(copied, start) + REDACTED_JSON
    copied = end
    KEY.lastIndex = end
  }
  return out + text.slice(copied)
}

/**
 * JSON-like text (valid or not): every string's content redacted as text, read both ways round,
 * and the value of each secret-named key replaced whole.
 */
function redactJsonText (redactor: Redactor, text: string): string {
  const contents = redactStringContents(redactor, redactStringContents(redactor, text, false), true)
  return redactSecretKeyValues(redactor, contents)
}

/** A multipart body with the content of each secret-named part replaced (its head kept). */
function redactMultipart (redactor: Redactor, text: string, boundary: string): string {
  const { preamble, delimiter, parts } = multipartParts(text, boundary)
  return [preamble, ...parts.map(({ raw, content, name }) => {
    if (content === null || name === undefined || !redactor.isSecretName(name)) return raw
    return `${raw.slice(0, content.start)}${REDACTED}${raw.slice(content.end)}`
  })].join(delimiter)
}

/**
 * The text of a body that was not parsed, redacted. `truncated`: the text is the start of a longer
 * body, cut back to its last separator first so that no secret cut in two is kept in part.
 */
export function redactBodyText (redactor: Redactor, text: string, contentType: string, truncated: boolean): string {
  const kept = truncated ? cutAtSeparator(text, text.length) : text
  const type = contentType.toLowerCase()
  if (type.startsWith('application/x-www-form-urlencoded')) return redactor.form(kept)
  const scanned = redactor.text(kept)
  const boundary = boundaryOf(contentType)
  if (boundary !== undefined) return redactMultipart(redactor, scanned, boundary)
  if (/[/+]json\b/.test(type) || /^\s*[{[]/.test(scanned)) return redactJsonText(redactor, scanned)
  return scanned
}
