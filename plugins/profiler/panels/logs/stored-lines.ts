// The logs panel as stored from 29 November 2026 (v 2): Fastify's own two lines a request, most of
// the panel's bytes, kept as their kind, offset and the one value the profile's row does not hold
// (the URL as Fastify logged it, redacted; the response time); the message, level, method and
// status are put back when read. A line whose redacted form is anything else is stored whole, so
// what is read is what was collected, and nothing unredacted is kept.
import type { PanelRowValues } from '../panel.js'
import { FASTIFY_COMPLETED, FASTIFY_INCOMING, FASTIFY_MESSAGES } from './probe.js'

/** One line as the panel shows it (index.ts's LineSchema). */
export interface ShownLine { offsetMs: number, level: string, message: string, fields: Record<string, unknown> | null }

/** Fastify's line as stored: its kind, its offset and its own value. */
type FastifyLine = [kind: typeof FASTIFY_INCOMING, offsetMs: number, url: string] | [kind: typeof FASTIFY_COMPLETED, offsetMs: number, responseTime: number]

/** The version of StoredLogs (the form before it has none). */
export const LINES_FORM = 2

export interface StoredLogs<Line> { v: typeof LINES_FORM, lines: Array<Line | FastifyLine>, omitted: number, sampledOut: boolean }

/** Whether `value` is an object with exactly `keys`, in that order. */
function isPlain (value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  let at = 0
  for (const key in value) if (key !== keys[at++]) return false
  return at === keys.length
}
const INCOMING_KEYS = ['req']
const REQ_KEYS = ['method', 'url']
const COMPLETED_KEYS = ['responseTime', 'res']
const RES_KEYS = ['statusCode']

/** A collected line as stored: compact when it is Fastify's `kind` exactly as `fromStoredLine` rebuilds it from `row`, else whole. */
export function toStoredLine<Line extends ShownLine> (line: Line, kind: unknown, row: Pick<PanelRowValues, 'method' | 'status'>): Line | FastifyLine {
  if (line.level !== 'info' || (kind !== FASTIFY_INCOMING && kind !== FASTIFY_COMPLETED) || line.message !== FASTIFY_MESSAGES[kind]) return line
  const { fields } = line
  if (kind === FASTIFY_INCOMING) {
    if (isPlain(fields, INCOMING_KEYS) && isPlain(fields.req, REQ_KEYS) && fields.req.method === row.method && typeof fields.req.url === 'string') return [kind, line.offsetMs, fields.req.url]
  } else if (isPlain(fields, COMPLETED_KEYS) && isPlain(fields.res, RES_KEYS) && fields.res.statusCode === row.status && typeof fields.responseTime === 'number') {
    return [kind, line.offsetMs, fields.responseTime]
  }
  return line
}

/** A stored line as shown: Fastify's rebuilt from its row, the others as they are. */
export function fromStoredLine<Line> (line: Line | FastifyLine, row: PanelRowValues): Line | ShownLine {
  if (!Array.isArray(line)) return line
  const [kind, offsetMs, value] = line
  return {
    offsetMs,
    level: 'info',
    message: FASTIFY_MESSAGES[kind] as string,
    fields: kind === FASTIFY_INCOMING ? { req: { method: row.method, url: value } } : { responseTime: value, res: { statusCode: row.status } }
  }
}
