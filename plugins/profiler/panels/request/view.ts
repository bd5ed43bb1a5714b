import { curlCommand } from './curl.js'
import { formatBytes } from '../../units.js'
import type { RequestData } from './schema.js'

/** How a redacted value reads in stored text, and inside a stored URL. */
const REDACTED_TEXT = /\[redacted\]|%5Bredacted%5D/g

/** Text cut into plain and redacted pieces, so that the page can mark each redacted value. */
function markRedacted (text: string): Array<{ text: string, redacted: boolean }> {
  const parts: Array<{ text: string, redacted: boolean }> = []
  let last = 0
  for (const match of text.matchAll(REDACTED_TEXT)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), redacted: false })
    parts.push({ text: match[0], redacted: true })
    last = match.index + match[0].length
  }
  if (last < text.length) parts.push({ text: text.slice(last), redacted: false })
  return parts
}

/**
 * Characters an HTML page may not hold as text (controls but tab and line ends, noncharacters),
 * which a body sent as is may: shown as \uXXXX.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]/g

function printable (text: string): string {
  return text.replace(UNPRINTABLE, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** The request panel's "copy as cURL" box, and a body that was not parsed as it can be shown. */
export function requestView (data: RequestData) {
  const curl = curlCommand(data)
  const parts = markRedacted(curl.command)
  const raw = data.rawBody
  return {
    curl: { parts, redacted: parts.some(part => part.redacted), truncatedBody: curl.truncatedBody },
    rawBody: raw === undefined ? null : { text: printable(raw.text), size: raw.bytes === null ? 'size unknown' : formatBytes(raw.bytes) }
  }
}
