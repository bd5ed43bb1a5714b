// The timeline as one SVG (no script; colours by class or presentation attribute: the CSP allows no
// inline style): an axis in ms with tick labels, the phases, the log lines as ticks, then a row per
// hook run, handler and statement. Items shorter than `?threshold=` (ms) are left out and counted.
import { formatMs } from '../../units.js'
import type { PageQuery } from '../panel.js'
import type { TimelineData, TimelineItem } from './schema.js'

/** The thresholds offered as links, in ms. */
const THRESHOLDS = [0, 0.01, 0.1, 1]
/** Characters of a row's label; its <title> has it whole. */
const LABEL_CHARS = 44

const WIDTH = 1000
const CHART_X = 310
const CHART_WIDTH = WIDTH - CHART_X - 10
const AXIS_HEIGHT = 22
const ROW_HEIGHT = 18
const BAR_HEIGHT = 12

const FILL: Record<TimelineItem['kind'], string> = { hook: '#6366f1', handler: '#0d9488', statement: '#db2777' }
const TICK_COLOUR: Record<string, string> = { warn: '#d97706', error: '#dc2626', fatal: '#dc2626' }

const round2 = (n: number): number => Math.round(n * 100) / 100

/** `?threshold=` as a number of ms (0 and up); anything else: 0, every item shown. */
function thresholdOf (query: PageQuery): number {
  const value = query.threshold
  if (typeof value !== 'string' || !/^\d{1,6}(\.\d{1,3})?$/.test(value)) return 0
  return Number(value)
}

/** Tick values at 1, 2 or 5 times a power of ten: about five over `span`. */
function axisTicks (span: number): number[] {
  const raw = span / 5
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map(factor => factor * magnitude).find(candidate => candidate >= raw) ?? 10 * magnitude
  const ticks: number[] = []
  for (let i = 0; i * step <= span * (1 + 1e-9); i++) ticks.push(Number((i * step).toPrecision(12)))
  return ticks
}

const shorten = (text: string): string => text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1)}…` : text

/** A statement's SQL; a hook's type, plugin and function name (`onSend route compress`); the handler's route and name. */
function labelOf (item: TimelineItem): string {
  if (item.kind === 'statement') return item.name
  return [item.type, item.plugin, item.name].filter(part => part !== '').join(' ')
}

export function timelineView (data: TimelineData, { query }: { query: PageQuery }) {
  const threshold = thresholdOf(query)
  const shown = data.items.filter(item => item.durationMs >= threshold)
  const span = Math.max(
    data.totalMs,
    ...data.items.map(item => item.startMs + item.durationMs),
    ...data.logs.map(line => line.offsetMs),
    0.001
  )
  const scale = CHART_WIDTH / span
  const xOf = (ms: number): number => round2(CHART_X + Math.max(0, ms) * scale)
  const widthOf = (ms: number): number => round2(Math.max(1, ms * scale))
  let y = AXIS_HEIGHT
  const nextRow = (): { y: number, barY: number, textY: number } => {
    const row = { y, barY: y + (ROW_HEIGHT - BAR_HEIGHT) / 2, textY: y + ROW_HEIGHT - 5 }
    y += ROW_HEIGHT
    return row
  }
  const phaseRow = nextRow()
  const phases = data.phases.map(phase => ({ ...phase, x: xOf(phase.startMs), width: widthOf(phase.durationMs), duration: formatMs(phase.durationMs) }))
  const logRow = data.logs.length === 0 ? null : nextRow()
  const ticks = data.logs.map(line => ({ ...line, x: xOf(line.offsetMs), colour: TICK_COLOUR[line.level] ?? 'currentColor', offset: formatMs(line.offsetMs) }))
  const rows = shown.map(item => {
    const label = labelOf(item)
    return {
      ...item,
      ...nextRow(),
      label: shorten(label),
      fullLabel: label,
      start: formatMs(item.startMs),
      duration: formatMs(item.durationMs),
      x: xOf(item.startMs),
      width: widthOf(item.durationMs),
      fill: FILL[item.kind]
    }
  })
  const height = y + 4
  return {
    width: WIDTH,
    height,
    chartX: CHART_X,
    labelEnd: CHART_X - 8,
    axis: axisTicks(span).map(ms => ({ x: xOf(ms), label: `${ms} ms`, y2: height })),
    phaseRow: { ...phaseRow, phases },
    logRow: logRow === null ? null : { ...logRow, ticks, top: logRow.barY - 2, bottom: logRow.barY + BAR_HEIGHT + 2 },
    rows,
    threshold: formatMs(threshold),
    thresholds: THRESHOLDS.map(value => ({ value, label: value === 0 ? 'all' : `${formatMs(value)} and longer`, active: value === threshold })),
    hidden: data.items.length - shown.length,
    legend: [{ label: 'Hook', fill: FILL.hook }, { label: 'Handler', fill: FILL.handler }, { label: 'Statement', fill: FILL.statement }],
    omitted: data.omitted.hooks + data.omitted.statements + data.omitted.logs
  }
}
