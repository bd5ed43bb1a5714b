// A statement's SQL or a log line's message as the timeline shows it: its start, on one line.
import { isSpace } from '../whitespace.js'

/** Characters kept of a statement's SQL and of a log line's message (the db and logs panels keep them whole). */
const SNIPPET_CHARS = 160

/** Whether the text is as snippet() would flatten it: no whitespace but single spaces between other characters (most SQL and messages). */
function isFlat (text: string): boolean {
  let space = true // a leading space is not flat
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 32) {
      if (space) return false
      space = true
    } else if (isSpace(c)) {
      return false
    } else {
      space = false
    }
  }
  return !space || text.length === 0
}

export const snippet = (text: string): string => {
  const flat = isFlat(text) ? text : text.replace(/\s+/g, ' ').trim()
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat
}
