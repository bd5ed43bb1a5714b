// Content negotiation for an answer written outside Fastify's lifecycle, where no request object
// (and so no @fastify/accepts) exists: the same choice as the error renderer's
// `request.accepts().type(['application/json', 'text/html'])`, from the Accept header's text. The
// test compares the two answers through the public interface on generated Accept headers.

interface Range { type: string, subtype: string, params: Map<string, string>, q: number, order: number }

const RANGE = /^\s*([^\s/;]+)\/([^;\s]+)\s*(?:;(.*))?$/

/** Splits on `separator` outside double quotes. */
function splitOutsideQuotes (text: string, separator: string): string[] {
  const parts: string[] = []
  let start = 0
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') quoted = !quoted
    else if (c === separator && !quoted) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

function parseRange (text: string, order: number): Range | null {
  const match = RANGE.exec(text.trim())
  if (match === null) return null
  const params = new Map<string, string>()
  let q = 1
  const rest = match[3]
  for (const pair of rest === undefined || rest === '' ? [] : splitOutsideQuotes(rest, ';').map(part => part.trim())) {
    const equals = pair.indexOf('=')
    const key = (equals === -1 ? pair : pair.slice(0, equals)).toLowerCase()
    let value = equals === -1 ? '' : pair.slice(equals + 1)
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
    // Parameters after q are accept-extensions: not part of the media range.
    if (key === 'q') {
      q = Number.parseFloat(value)
      break
    }
    params.set(key, value)
  }
  return { type: match[1] ?? '', subtype: match[2] ?? '', params, q, order }
}

interface Priority { q: number, specificity: number, order: number }

/** How well `range` matches the offer type/subtype (which has no parameters); null: not at all. */
function match (offerType: string, offerSubtype: string, range: Range): Priority | null {
  let specificity = 0
  if (range.type.toLowerCase() === offerType) specificity |= 4
  else if (range.type !== '*') return null
  if (range.subtype.toLowerCase() === offerSubtype) specificity |= 2
  else if (range.subtype !== '*') return null
  if (range.params.size > 0) {
    // The offers carry no parameters: a range asking for one matches only with `*`.
    for (const value of range.params.values()) if (value !== '*' && value !== '') return null
    specificity |= 1
  }
  return { q: range.q, specificity, order: range.order }
}

/** The best range for an offer: the most specific, then the highest q, then the last listed; q 0 when none matches. */
function priorityOf (offer: string, ranges: Range[]): Priority {
  const [type = '', subtype = ''] = offer.split('/')
  let best: Priority = { q: 0, specificity: 0, order: -1 }
  for (const range of ranges) {
    const found = match(type, subtype, range)
    if (found !== null && (best.specificity - found.specificity || best.q - found.q || best.order - found.order) < 0) best = found
  }
  return best
}

/**
 * Whether an Accept header prefers text/html to application/json: higher q wins, then the more
 * specific range, then the range listed first; JSON on a tie, without an Accept header, or when
 * neither is acceptable.
 */
export function prefersHtml (accept: string | undefined): boolean {
  if (accept === undefined || accept === '') return false
  const ranges = splitOutsideQuotes(accept, ',').map(parseRange).filter((range): range is Range => range !== null)
  const json = priorityOf('application/json', ranges)
  const html = priorityOf('text/html', ranges)
  if (!(html.q > 0)) return false
  if (!(json.q > 0)) return true
  return (json.q - html.q || json.specificity - html.specificity || html.order - json.order) < 0
}
