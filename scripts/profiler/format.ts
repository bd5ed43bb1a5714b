import { STATUS_CODES } from 'node:http'
import { listTime, statusClass } from '../../plugins/profiler/pages/view-model.js'
import type { ProfileSummary, StoredProfile } from '../../plugins/profiler/profile.js'

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
  return (JSON.stringify(value, null, 2) ?? 'null').replace(CONTROL_IN_JSON, escape)
}

const COLOURS: Record<string, [number, number]> = {
  'status-error': [31, 39],
  'status-warning': [33, 39],
  'status-success': [32, 39]
}

/** The status, coloured as on the page (error red, warning yellow, success green) when `colour` is on. */
function statusText (status: number, colour: boolean): string {
  const [open, close] = COLOURS[statusClass(status)] ?? [39, 39]
  return colour ? `\u001b[${open}m${status}\u001b[${close}m` : String(status)
}

const COLUMNS = ['Token', 'Time', 'Status', 'Method', 'Duration', 'IP', 'URL'] as const

/** The listing as an aligned table, newest first, or the page's sentence when there is nothing. */
export function resultsTable (results: ProfileSummary[], colour: boolean): string {
  if (results.length === 0) return 'The query returned no result.\n'
  const rows = results.map(result => [
    result.token,
    listTime(result.time),
    String(result.status),
    printable(result.method),
    `${result.durationMs.toFixed(1)} ms`,
    printable(result.ip),
    printable(result.url)
  ])
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map(row => row[i]?.length ?? 0)))
  const STATUS = COLUMNS.indexOf('Status')
  // Widths are measured on the plain text; the status's colour codes wrap it afterwards.
  const line = (cells: string[], status?: number) => cells.map((cell, i) => {
    const padding = i === cells.length - 1 ? '' : ' '.repeat((widths[i] ?? 0) - cell.length)
    return (i === STATUS && status !== undefined ? statusText(status, colour) : cell) + padding
  }).join('  ').trimEnd()
  return [line([...COLUMNS]), ...rows.map((row, i) => line(row, results[i]?.status))].join('\n') + '\n'
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
    ['Route', printable(profile.route ?? '(none)')]
  ]
  const summary = fields.map(([name, value]) => `${name.padEnd(10)}${value}`).join('\n')
  return `${summary}\n\n[${panel}]\n${printableJson(profile.panels[panel])}\n`
}
