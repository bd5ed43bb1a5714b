import { format } from 'node:util'
import { Type, type Static } from 'typebox'
import { formatMs } from '../units.js'
import type { CapturedLogLine } from '../collect/log-capture.js'
import type { Panel } from './panel.js'

/** pino's levels, lowest first, and their numbers. */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const
type Level = typeof LEVELS[number]
const LEVEL_NUMBERS: Record<Level, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 }

const LineSchema = Type.Object({
  /** Milliseconds since the request began. */
  offsetMs: Type.Number(),
  level: Type.Union([Type.Literal('trace'), Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('fatal')]),
  /** The message, its %s/%d/%j placeholders filled in, redacted; empty when the call had none. */
  message: Type.String(),
  /** The call's own fields (`request.log.info({ code }, ...)`, Fastify's `req`, `res`, `err`), redacted; null: none. */
  fields: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])
}, { additionalProperties: false })

const LogsSchema = Type.Object({
  /** The request's first lines at PROFILER_LOG_LEVEL and above, in order (100 and 16 KiB at most). */
  lines: Type.Array(LineSchema),
  /** The lines after those: logged, not kept. */
  omitted: Type.Integer(),
  /** true: the sample (PROFILER_SAMPLE) left the request out and a rule kept it: only its warnings and errors were captured. */
  sampledOut: Type.Boolean()
}, { additionalProperties: false })
type LogsData = Static<typeof LogsSchema>
type LogLine = Static<typeof LineSchema>

const round = (ms: number): number => Math.round(ms * 1000) / 1000

/** A custom level's number is shown as the named level at or below it. */
function levelName (level: number): Level {
  let name: Level = 'trace'
  for (const candidate of LEVELS) if (LEVEL_NUMBERS[candidate] <= level) name = candidate
  return name
}

/** The message as pino prints it: its placeholders filled in. */
function message (line: CapturedLogLine): string {
  if (line.message === undefined) return ''
  return line.args.length === 0 ? line.message : format(line.message, ...line.args)
}

const isLevel = (value: unknown): value is Level => typeof value === 'string' && (LEVELS as readonly string[]).includes(value)

/** Logs: what the request logged through request.log, Fastify's own lines included; "this level and above" by link. */
export const logsPanel: Panel<typeof LogsSchema> = {
  name: 'logs',
  label: 'Logs',
  description: 'the log lines the request wrote (request.log, Fastify\'s own), in order: offset ms, level, message, fields (redacted); omitted: lines past the caps; sampledOut: the sample left the request out (a rule kept it), so only its warnings and errors were captured',
  schema: LogsSchema,
  collect ({ capture, redactor }) {
    const logs = capture.logs
    if (logs === undefined) return { lines: [], omitted: 0, sampledOut: false }
    return {
      lines: logs.lines.map(line => ({
        offsetMs: round(line.offsetMs),
        level: levelName(line.level),
        message: redactor.text(message(line)),
        fields: line.fields === undefined ? null : redactor.fields(line.fields) as Record<string, unknown>
      })),
      omitted: logs.omitted,
      sampledOut: logs.drawn === false
    }
  },
  fromStored (stored) {
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
