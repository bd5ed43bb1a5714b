// The logs panel as stored from 29 November 2026 (v 2): Fastify's own two lines a request, most of
// the panel's bytes, kept as their kind, offset and the one value the profile's row does not hold
// (the URL as Fastify logged it, redacted; the response time); the message, level, method and
// status are put back when read. A line whose redacted form is anything else is stored whole, so
// what is read is what was collected, and nothing unredacted is kept.
import type { PanelRowValues } from '../panel.js'
import type { Redactor } from '../../../../lib/redact.js'
import type { RequestCapture } from '../../capture/capture.js'
import { FASTIFY_COMPLETED, FASTIFY_INCOMING, FASTIFY_MESSAGES, type CapturedLine } from './probe.js'

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

/** Fastify's lines' keys (their values are those of no secret), for FASTIFY_PLAIN. */
const FASTIFY_KEYS = { req: 0, method: 0, url: 0, responseTime: 0, res: 0, statusCode: 0 }

/** Per redactor: whether its rules leave Fastify's lines' keys and messages as they are (no secret name, no configured secret value in them). */
const FASTIFY_PLAIN = new WeakMap<Redactor, boolean>()

function fastifyLinesPlain (redactor: Redactor): boolean {
  let plain = FASTIFY_PLAIN.get(redactor)
  if (plain === undefined) {
    plain = JSON.stringify(redactor.fields(FASTIFY_KEYS)) === JSON.stringify(FASTIFY_KEYS) && Object.values(FASTIFY_MESSAGES).every(text => redactor.text(text) === text)
    FASTIFY_PLAIN.set(redactor, plain)
  }
  return plain
}

/**
 * One of Fastify's captured lines as stored, made from the capture at once (its offset given):
 * what toStoredLine gives for the line as shown (redacted), without building that line first.
 * Null when it is not sure to be compact (the rules touch its keys or message, its method or
 * values would be redacted, another level): then the line is shown and stored as any other.
 */
export function compactFastifyLine (line: CapturedLine, capture: Pick<RequestCapture, 'method' | 'statusCode'>, redactor: Redactor, offsetMs: number): FastifyLine | null {
  const [, level, text, kind, value] = line
  if ((kind !== FASTIFY_INCOMING && kind !== FASTIFY_COMPLETED) || text !== FASTIFY_MESSAGES[kind] || !(level >= 30 && level < 40) || !fastifyLinesPlain(redactor)) return null
  if (kind === FASTIFY_INCOMING) {
    // The shown line's fields: { req: { method, url } }, each value redacted as text.
    if (typeof value !== 'string' || redactor.text(capture.method) !== capture.method) return null
    return [kind, offsetMs, redactor.text(value)]
  }
  // { responseTime, res: { statusCode } }: numbers, kept unless they read as a secret.
  if (typeof value !== 'number' || redactor.fields(value) !== value || redactor.fields(capture.statusCode) !== capture.statusCode) return null
  return [kind, offsetMs, value]
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
