import { format } from 'node:util'
import type { Redactor } from '../../../../lib/redact.js'
import type { RequestCapture } from '../../capture/capture.js'
import { formatMs, roundMs } from '../../units.js'
import type { CollectContext, Panel } from '../panel.js'
import { FASTIFY_COMPLETED, FASTIFY_INCOMING, LINE_SLOTS, logsProbe, type CapturedLine, type RequestLogs } from './probe.js'
import type { LogLine, LogsData, LogsSchema } from './schema.js'
import { compactFastifyLine, fromStoredLine, LINES_FORM, toStoredLine, type StoredLogs } from './stored-lines.js'

/** pino's levels, lowest first, and their numbers. */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const
type Level = typeof LEVELS[number]
const LEVEL_NUMBERS: Record<Level, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 }

/** A custom level's number is shown as the named level at or below it. */
function levelName (level: number): Level {
  let name: Level = 'trace'
  for (const candidate of LEVELS) if (LEVEL_NUMBERS[candidate] <= level) name = candidate
  return name
}

/** The message as pino prints it: its placeholders filled in. */
function message ([, , text, args]: CapturedLine): string {
  if (text === undefined) return ''
  return Array.isArray(args) && args.length > 0 ? format(text, ...args) : text
}

/** A line's fields as the call gave them (Fastify's own: as its serializers print them), redacted; null: none. */
function fields ([, , , args, value]: CapturedLine, capture: RequestCapture, redactor: Redactor): Record<string, unknown> | null {
  const given = args === FASTIFY_INCOMING
    ? { req: { method: capture.method, url: value } }
    : args === FASTIFY_COMPLETED ? { responseTime: value, res: { statusCode: capture.statusCode } } : value
  if (given === undefined) return null
  return redactor.fields(given) as Record<string, unknown>
}

/** The captured lines, one tuple each (the capture holds them in one array: probe.ts). */
function capturedLines (logs: RequestLogs): CapturedLine[] {
  const lines: CapturedLine[] = []
  for (let at = 0; at + LINE_SLOTS <= logs.lines.length; at += LINE_SLOTS) lines.push(logs.lines.slice(at, at + LINE_SLOTS) as CapturedLine)
  return lines
}

/** A line's offset in the request. Fastify logs "incoming request" just before the reply's clock starts: at 0, not a few µs before. */
const offsetOf = (line: CapturedLine, capture: RequestCapture): number => roundMs(Math.max(0, line[0] - capture.originMs))

/** A captured line as the panel shows it, redacted. */
function shownLine (line: CapturedLine, capture: RequestCapture, redactor: Redactor): LogLine {
  return { offsetMs: offsetOf(line, capture), level: levelName(line[1]), message: redactor.text(message(line)), fields: fields(line, capture, redactor) }
}

/** The panel's data from what the probe took (collect; record stores it with Fastify's lines compact). */
function logsOf ({ capture, redactor }: CollectContext, logs: RequestLogs | undefined): LogsData {
  if (logs === undefined) return { lines: [], omitted: 0, sampledOut: false }
  return { lines: capturedLines(logs).map(line => shownLine(line, capture, redactor)), omitted: logs.omitted, sampledOut: logs.drawn === false }
}

const isLevel = (value: unknown): value is Level => typeof value === 'string' && (LEVELS as readonly string[]).includes(value)

/** Logs: what the request logged through request.log, Fastify's own lines included; "this level and above" by link. */
export const logsPanel: Panel<typeof LogsSchema, LogsData | StoredLogs<LogLine>, RequestLogs> = {
  name: 'logs',
  label: 'Logs',
  description: 'the log lines the request wrote (request.log, Fastify\'s own), in order: offset ms, level, message, fields (redacted); omitted: lines past the caps; sampledOut: the sample left the request out (a rule kept it), so only its warnings and errors were captured',
  probe: logsProbe,
  collect: logsOf,
  // Stored with Fastify's own lines as their kind, offset and own value (stored-lines.ts): the row holds the rest.
  record ({ capture, redactor }, logs) {
    if (logs === undefined) return { v: LINES_FORM, lines: [], omitted: 0, sampledOut: false }
    const row = { method: capture.method, status: capture.statusCode }
    // Fastify's lines straight to their stored form when that is what the shown line would give (most lines).
    const lines = capturedLines(logs).map(line => compactFastifyLine(line, capture, redactor, offsetOf(line, capture)) ?? toStoredLine(shownLine(line, capture, redactor), line[3], row))
    return { v: LINES_FORM, lines, omitted: logs.omitted, sampledOut: logs.drawn === false }
  },
  rowCounts (logs) {
    return { logWarnings: logs?.warnings ?? 0, logErrors: logs?.errors ?? 0 }
  },
  fromStored (stored, row) {
    if ('v' in stored) return { lines: stored.lines.map(line => fromStoredLine(line, row) as LogLine), omitted: stored.omitted, sampledOut: stored.sampledOut }
    // Stored before sampledOut existed: every line at PROFILER_LOG_LEVEL was captured then.
    return { ...stored, sampledOut: (stored as Partial<LogsData>).sampledOut ?? false }
  },
  /** The lines at `?level=` and above (all without it), and a link per level with how many lines it shows. */
  view (data: LogsData, { query }) {
    const chosen = isLevel(query.level) ? query.level : null
    const atOrAbove = (line: LogLine, level: Level | null): boolean => level === null || LEVEL_NUMBERS[line.level] >= LEVEL_NUMBERS[level]
    return {
      levels: [null, ...LEVELS].map(level => ({
        level,
        label: level === null ? 'all' : `${level} and above`,
        count: data.lines.filter(line => atOrAbove(line, level)).length,
        active: level === chosen
      })),
      lines: data.lines.filter(line => atOrAbove(line, chosen)).map(line => ({
        ...line,
        offset: formatMs(line.offsetMs),
        fieldsText: line.fields === null ? null : JSON.stringify(line.fields)
      }))
    }
  }
}
