// The counts a profile's row holds beside its panels, for the listing and the search: declared once
// here (issue 41), and from here come the record's fields, the panels' row counts, the columns both
// engines insert and select, and the listing's JSON schema (schemas.ts builds it from `json`: this
// module runs in the profiler's threads, which load no TypeBox). Adding one is its entry below, the
// panel that gives it (Panel.rowCounts), and a migration adding the column on each engine.

interface RowCount<Column extends string, Summary extends string, Json extends 'integer' | 'number'> {
  /** The column of `profiles`, on both engines. */
  column: Column
  /** The key in the listing's rows (ProfileSummary), JSON and pages. */
  summary: Summary
  /** Its type in the listing's JSON. */
  json: Json
  /** PostgreSQL's type of the column (the writer's unnest() arrays). */
  pgType: 'integer' | 'float8'
}

function rowCount<const Column extends string, const Summary extends string, const Json extends 'integer' | 'number'> (count: RowCount<Column, Summary, Json>): RowCount<Column, Summary, Json> {
  return count
}

export const ROW_COUNTS = {
  /** Statements run on the advisors' database (the db panel). */
  queryCount: rowCount({ column: 'query_count', summary: 'queries', json: 'integer', pgType: 'integer' }),
  /** Their total time in ms. */
  queryMs: rowCount({ column: 'query_ms', summary: 'queryMs', json: 'number', pgType: 'float8' }),
  /** Log lines at warn the request wrote (the logs panel). */
  logWarnings: rowCount({ column: 'log_warnings', summary: 'warnings', json: 'integer', pgType: 'integer' }),
  /** Log lines at error or above. */
  logErrors: rowCount({ column: 'log_errors', summary: 'errors', json: 'integer', pgType: 'integer' })
}

export type Counts = typeof ROW_COUNTS
export type RowCountField = keyof Counts
/** Each count by its record field (a panel's rowCounts, the record's). */
export type RowCounts = Record<RowCountField, number>
/** Each count by its column, as a row is read. */
export type RowCountColumns = { [K in RowCountField as Counts[K]['column']]: number }

const FIELDS = Object.keys(ROW_COUNTS) as RowCountField[]

const NO_ROW_COUNTS = Object.fromEntries(FIELDS.map(field => [field, 0])) as RowCounts

/** Every count at 0 (a profile no panel gave a count): a new object each call (the writer fills it in). */
export function noRowCounts (): RowCounts {
  return { ...NO_ROW_COUNTS }
}

/** The columns, in declaration order (the writers' INSERT lists). */
export const ROW_COUNT_COLUMNS: string[] = FIELDS.map(field => ROW_COUNTS[field].column)

/** PostgreSQL's types of those columns, in the same order. */
export const ROW_COUNT_PG_TYPES: string[] = FIELDS.map(field => ROW_COUNTS[field].pgType)

/** A record's counts in the columns' order (0 when absent). */
export function rowCountValues (record: Partial<RowCounts>): number[] {
  return FIELDS.map(field => record[field] ?? 0)
}

/** A read row's counts as the listing's keys. */
export function summaryCounts (row: RowCountColumns): { [K in RowCountField as Counts[K]['summary']]: number } {
  return Object.fromEntries(FIELDS.map(field => [ROW_COUNTS[field].summary, row[ROW_COUNTS[field].column]])) as { [K in RowCountField as Counts[K]['summary']]: number }
}
