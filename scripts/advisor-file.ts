import { readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'

/** One row of an import file and the line it starts on (1-based), for error reports. */
export interface NumberedRow { line: number, row: unknown }

export class AdvisorFileError extends Error {}

/** Line numbers where each element of a top-level JSON array starts. */
function arrayElementLines (text: string): number[] {
  const lines: number[] = []
  let line = 1
  let depth = 0
  let inString = false
  let escaped = false
  let expecting = false
  for (const char of text) {
    if (char === '\n') line++
    if (inString) {
      if (escaped) escaped = false
      else if (char === '\\') escaped = true
      else if (char === '"') inString = false
      continue
    }
    if (depth === 1 && expecting && !/\s/.test(char) && char !== ']') {
      lines.push(line)
      expecting = false
    }
    if (char === '"') inString = true
    else if (char === '[' || char === '{') {
      depth++
      if (depth === 1) expecting = true
    } else if (char === ']' || char === '}') depth--
    else if (char === ',' && depth === 1) expecting = true
  }
  return lines
}

function readJson (text: string): NumberedRow[] {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new AdvisorFileError(`not valid JSON: ${(err as Error).message}`)
  }
  if (!Array.isArray(data)) throw new AdvisorFileError('a JSON import file must hold an array of advisors')
  const lines = arrayElementLines(text)
  return data.map((row, index) => ({ line: lines[index] ?? 0, row }))
}

function readCsv (text: string): NumberedRow[] {
  try {
    const records = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true, trim: true, info: true }) as Array<{ record: Record<string, string>, info: { lines: number } }>
    return records.map(({ record, info }) => ({ line: info.lines, row: record }))
  } catch (err) {
    throw new AdvisorFileError(`not valid CSV: ${(err as Error).message}`)
  }
}

/** Reads a .csv (header row: code,first_name,...) or .json (array of objects) file of advisors. */
export function readAdvisorFile (file: string): NumberedRow[] {
  const type = extname(file).toLowerCase()
  if (type !== '.csv' && type !== '.json') throw new AdvisorFileError(`unknown file type "${type}": use .csv or .json`)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new AdvisorFileError(`cannot read the file: ${(err as Error).message}`)
  }
  return type === '.csv' ? readCsv(text) : readJson(text)
}
