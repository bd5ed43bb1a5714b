import { STATUS_CODES } from 'node:http'
import { routeStatsText, type RouteStatsAnswer } from '../query/stats-json.js'
import { comparisonText } from '../query/stats-compare.js'
import { listTime, statusClass } from '../units.js'
import type { ProfileSummary, StoredProfile } from '../profile.js'

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g
/** What JSON.stringify leaves as is: DEL and the C1 controls (one of them starts terminal sequences). */
const CONTROL_IN_JSON = /[\u007f-\u009f]/g
const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/** Control characters shown as escapes: stored text must not drive the terminal. */
export function printable (text: string): string {
  return text.replace(CONTROL, escape)
}

/** Indented JSON for a terminal. */
export function printableJson (value: unknown): string {
  return terminalSafe(JSON.stringify(value, null, 2) ?? 'null')
}

/**
 * Everything the command line prints goes through this: DEL and the C1 controls as \u escapes.
 * JSON output stays the same JSON (JSON.stringify already escapes C0 and leaves these as they
 * are), tables and summaries have escaped every control already (printable), and curl commands
 * write controls through printf (panels/request/curl.ts). C0 is left alone: the tables' colours are ESC.
 */
export function terminalSafe (text: string): string {
  return text.replace(CONTROL_IN_JSON, escape)
}

const COLOURS: Record<string, [number, number]> = {
  'status-error': [31, 39],
  'status-warning': [33, 39],
  'status-success': [32, 39]
}

/** The status (or `text` about it), coloured as on the page (error red, warning yellow, success green) when `colour` is on. */
function statusText (status: number, colour: boolean, text = String(status)): string {
  const [open, close] = COLOURS[statusClass(status)] ?? [39, 39]
  return colour ? `\u001b[${open}m${text}\u001b[${close}m` : text
}

/** A cell: its plain text (which sets the width) and, when coloured, what is printed instead. */
type Cell = string | { text: string, shown: string }

/**
 * Columns aligned on the cells' plain text, two spaces apart; numbers (the `right` columns) aligned
 * right. The last column is not padded, so a long URL or route does not pad every other line.
 */
export function alignedTable (titles: readonly string[], rows: Cell[][], right: ReadonlySet<number> = new Set()): string {
  const plain = (cell: Cell | undefined): string => typeof cell === 'string' ? cell : cell?.text ?? ''
  const widths = titles.map((title, i) => Math.max(title.length, ...rows.map(row => plain(row[i]).length)))
  const line = (cells: Cell[]) => cells.map((cell, i) => {
    const text = plain(cell)
    const shown = typeof cell === 'string' ? cell : cell.shown
    const padding = ' '.repeat((widths[i] ?? 0) - text.length)
    if (right.has(i)) return padding + shown
    return i === cells.length - 1 ? shown : shown + padding
  }).join('  ').trimEnd()
  return [line([...titles]), ...rows.map(line)].join('\n') + '\n'
}

/** The status cell, coloured when `colour` is on. */
const statusCell = (status: number, text: string, colour: boolean): Cell => ({ text, shown: statusText(status, colour, text) })

const COLUMNS = ['Token', 'Time', 'Status', 'Method', 'Duration', 'IP', 'URL'] as const

/** The listing as an aligned table, newest first, or the page's sentence when there is nothing. */
export function resultsTable (results: ProfileSummary[], colour: boolean): string {
  if (results.length === 0) return 'The query returned no result.\n'
  return alignedTable(COLUMNS, results.map(result => [
    result.token,
    listTime(result.time),
    statusCell(result.status, String(result.status), colour),
    printable(result.method),
    `${result.durationMs.toFixed(1)} ms`,
    printable(result.ip),
    printable(result.url)
  ]))
}

const STATS_COLUMNS = ['Route', 'Method', 'Status', 'Requests', 'Kept', '1xx', '2xx', '3xx', '4xx', '5xx', 'p50', 'p95', 'p99', 'Max'] as const
const STATS_NUMBERS = new Set([...STATS_COLUMNS.keys()].filter(i => i >= STATS_COLUMNS.indexOf('Requests')))

/** The route statistics as the page shows them: the window, then one line per route (slowest p95 first). */
export function statsTable (stats: RouteStatsAnswer, colour: boolean): string {
  const of = stats.deployment === null ? '' : `, deployment ${printable(stats.deployment)}`
  const bound = (stats.bound === null ? '' : `Statistics are kept ${stats.bound.statsMaxAge} (PROFILER_STATS_MAX_AGE): none from before ${listTime(stats.bound.from)} (UTC).\n`) +
    (stats.givenUp === null ? '' : `Oldest hours given up to PROFILER_MAX_BYTES: none from before ${listTime(stats.givenUp.from)} (UTC).\n`)
  const missing = stats.missing.total === 0
    ? ''
    : `${stats.missing.total} request(s) could not be counted and are missing from these figures: ${stats.missing.windows.map(window => `${listTime(window.from)} (${window.count})`).join(', ')}.\n`
  const heading = `Route statistics, last ${stats.window}${of}: ${listTime(stats.from)} to ${listTime(stats.to)} (UTC)\n${bound}${missing}`
  if (stats.routes.length === 0) return `${heading}No request was recorded in this window.\n`
  return heading + alignedTable(STATS_COLUMNS, stats.routes.map(line => {
    const text = routeStatsText(line)
    const classes = line.statusClasses
    return [
      printable(text.label),
      printable(text.methodText),
      line.status === null || text.statusText === null ? '' : statusCell(line.status, text.statusText, colour),
      String(line.count),
      String(line.kept),
      String(classes['1xx']), String(classes['2xx']), String(classes['3xx']), String(classes['4xx']), String(classes['5xx']),
      text.p50, text.p95, text.p99, text.max
    ]
  }), STATS_NUMBERS)
}

const COMPARISON_COLUMNS = ['Route', 'Method', 'Status', 'A requests', 'B requests', 'p50 A', 'p50 B', 'p50 B-A', 'p95 A', 'p95 B', 'p95 B-A', 'p99 A', 'p99 B', 'p99 B-A', 'Slower'] as const
const COMPARISON_NUMBERS = new Set([...COMPARISON_COLUMNS.keys()].filter(i => i >= 3 && i < COMPARISON_COLUMNS.length - 1))

/** The statistics, then (with --compare) both deployments side by side per route. */
export function statsText (stats: RouteStatsAnswer, colour: boolean): string {
  const table = statsTable(stats, colour)
  if (stats.comparison === null || stats.deployment === null || stats.compare === null) return table
  const heading = `\nA = deployment ${printable(stats.deployment)}, B = deployment ${printable(stats.compare)}; slower: beyond both histograms' error (4.4% each way)\n`
  if (stats.comparison.length === 0) return `${table}${heading}Neither deployment recorded a request in this window.\n`
  return table + heading + alignedTable(COMPARISON_COLUMNS, stats.comparison.map(line => {
    const text = comparisonText(line)
    return [
      printable(text.label),
      printable(text.methodText),
      line.status === null || text.statusText === null ? '' : statusCell(line.status, text.statusText, colour),
      text.countA,
      text.countB,
      ...text.cells.flatMap(cell => [cell.a, cell.b, cell.diff]),
      printable(text.slowerText)
    ]
  }), COMPARISON_NUMBERS)
}

/** One profile: its summary, then the panel as indented JSON. */
export function profileText (profile: StoredProfile, panel: string, colour: boolean): string {
  const fields: Array<[string, string]> = [
    ['Token', profile.token],
    ['Status', `${statusText(profile.status, colour)} ${STATUS_CODES[profile.status] ?? ''}`.trimEnd()],
    ['Request', printable(`${profile.method} ${profile.url}`)],
    ['IP', printable(profile.ip)],
    ['Time', `${listTime(profile.time)} (${profile.time})`],
    ['Duration', `${profile.durationMs} ms`],
    ['Database', `${profile.queries} ${profile.queries === 1 ? 'query' : 'queries'} in ${profile.queryMs} ms`],
    ['Route', printable(profile.route ?? '(none)')],
    ['Logs', `${profile.warnings} warning(s), ${profile.errors} error(s)`],
    ['Trace', printable(profile.traceId ?? '(none)')]
  ]
  const summary = fields.map(([name, value]) => `${name.padEnd(10)}${value}`).join('\n')
  return `${summary}\n\n[${panel}]\n${printableJson(profile.panels[panel])}\n`
}
