// "Copy as cURL": the stored request panel as a curl command line that reproduces the request.
// Pure: it reads the (already redacted) panel and nothing else.
import type { RequestData } from './schema.js'

/** What the command is built from: the request panel's (panels/request/schema.ts). */
export type CurlSource = Pick<RequestData, 'method' | 'url' | 'requestHeaders' | 'body' | 'rawBody'>

export interface CurlCommand {
  /** The arguments after `curl`, unquoted: what the shell hands to curl. */
  args: string[]
  /** The command line, every argument shell-quoted, one option per line. */
  command: string
  /** The stored body was a truncated preview: the command sends that preview. */
  truncatedBody: boolean
}

// eslint-disable-next-line no-control-regex
const CONTROL_RUNS = /([\u0000-\u0008\u000b-\u001f\u007f-\u009f]+)/

/** Headers curl computes or that belong to the connection, not to the request. */
const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer'])
/**
 * One POSIX shell word that stands for exactly `text`: inside single quotes nothing is special
 * except the quote itself, which closes, is escaped, and reopens ('\''). A control character
 * (C0 but tab and newline, DEL, C1: U+009B starts a terminal sequence) is never written as is:
 * it is produced by printf from octal escapes of its UTF-8 bytes, "$(printf '\302\233')", so the
 * command shown on a terminal cannot drive it (dash, Debian's sh, has no $'...').
 * (Arguments cannot hold NUL; no request field can either.)
 */
function shellQuote (text: string): string {
  if (!CONTROL_RUNS.test(text)) return singleQuoted(text)
  // split() with a capturing group: text, a run of controls, text, ... (empty texts dropped).
  return text.split(CONTROL_RUNS).map((part, i) => i % 2 === 1 ? printfOf(part) : part === '' ? '' : singleQuoted(part)).join('')
}

function singleQuoted (text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`
}

const utf8 = new TextEncoder()

/** A command substitution that prints exactly `text` (control characters only: no trailing newline for $(...) to drop). */
function printfOf (text: string): string {
  const octal = [...utf8.encode(text)].map(byte => `\\${byte.toString(8).padStart(3, '0')}`).join('')
  return `"$(printf '${octal}')"`
}

function isTruncated (body: unknown): body is { truncated: true, preview: string, bytes?: unknown } {
  return typeof body === 'object' && body !== null && (body as { truncated?: unknown }).truncated === true &&
    typeof (body as { preview?: unknown }).preview === 'string'
}

function headerText (headers: Record<string, unknown>, name: string): string {
  const value = headers[name] ?? headers[name.toLowerCase()]
  return Array.isArray(value) ? value.map(String).join(', ') : value === undefined || value === null ? '' : String(value)
}

/** A parsed form body's fields (arrays as repeated fields), in their original order. */
export function formFields (body: unknown): Array<{ name: string, value: string }> {
  const fields: Array<{ name: string, value: string }> = []
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) fields.push({ name, value: typeof item === 'string' ? item : JSON.stringify(item) })
  }
  return fields
}

/** A parsed form body encoded again, in its original field order. */
function formText (body: unknown): string {
  return new URLSearchParams(formFields(body).map(({ name, value }): [string, string] => [name, value])).toString()
}

/** The body was sent as a form and is stored parsed (an object). */
export function isFormBody (source: CurlSource): boolean {
  return headerText(source.requestHeaders, 'content-type').toLowerCase().startsWith('application/x-www-form-urlencoded') &&
    typeof source.body === 'object' && source.body !== null && !isTruncated(source.body)
}

/**
 * The request body as text, or null when there was none: the body that was not parsed as it was
 * sent. `bytes`: a truncated body's size as sent (null when unknown).
 */
export function bodyText (source: CurlSource): { text: string, truncated: boolean, bytes?: number | null } | null {
  const { body, rawBody } = source
  if ((body === null || body === undefined) && rawBody !== undefined) return { text: rawBody.text, truncated: rawBody.truncated, bytes: rawBody.bytes }
  if (body === null || body === undefined) return null
  if (isTruncated(body)) return { text: body.preview, truncated: true, bytes: typeof body.bytes === 'number' ? body.bytes : null }
  if (isFormBody(source)) return { text: formText(body), truncated: false }
  return { text: JSON.stringify(body), truncated: false }
}

/** One line of the command: an option (printed bare) and its value (quoted), or the URL. */
interface Line { args: string[], text: string }
const option = (name: string, value?: string): Line =>
  value === undefined
    ? { args: [name], text: name }
    : { args: [name, value], text: `${name} ${name === '-X' && /^[A-Z]+$/.test(value) ? value : shellQuote(value)}` }

export function curlCommand (source: CurlSource): CurlCommand {
  const method = source.method.toUpperCase()
  const body = method === 'GET' || method === 'HEAD' ? null : bodyText(source)
  const lines: Line[] = [{ args: [source.url], text: shellQuote(source.url) }]
  // curl reads [] and {} in a URL as globs unless told not to.
  if (/[[\]{}]/.test(source.url)) lines.push(option('--globoff'))
  if (method === 'HEAD') lines.push(option('--head'))
  // curl sends GET, or POST with a body, by itself: -X only for anything else.
  // (A method the HTTP parser could not read is stored empty: the command then sends GET.)
  else if (method !== '' && method !== 'GET' && !(method === 'POST' && body !== null)) lines.push(option('-X', method))
  let compressed = false
  for (const [name, value] of Object.entries(source.requestHeaders)) {
    const lower = name.toLowerCase()
    if (SKIPPED_HEADERS.has(lower) || value === undefined || value === null) continue
    if (lower === 'accept-encoding') compressed = true
    for (const item of Array.isArray(value) ? value : [value]) {
      const text = typeof item === 'string' ? item : JSON.stringify(item)
      // "name;" is curl's way to send a header with an empty value ("name:" would remove it).
      lines.push(option('-H', text === '' ? `${name};` : `${name}: ${text}`))
    }
  }
  // A body sent with no type: curl would send its form type with the data ("Content-Type:" sends none).
  if (body !== null && source.body === null && source.requestHeaders['content-type'] === undefined) lines.push(option('-H', 'Content-Type:'))
  if (compressed) lines.push(option('--compressed'))
  if (body !== null) lines.push(option('--data-raw', body.text))
  return {
    args: lines.flatMap(line => line.args),
    command: `curl ${lines.map(line => line.text).join(' \\\n  ')}`,
    truncatedBody: body?.truncated === true
  }
}
