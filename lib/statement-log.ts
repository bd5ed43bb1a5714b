// The statements one request ran on the advisors' database, as the request thread saw them: the
// SQL and parameters by reference (no copy, no JSON), the times as numbers. The profiler's writer
// thread redacts and formats them (plugins/profiler/panels/db/). Bounded per request.

/** Statements kept per request; the rest are only counted. */
export const MAX_STATEMENTS = 200
/** SQL text kept per request, in UTF-16 code units (the SQL is ASCII: bytes); the rest are only counted. */
export const MAX_SQL_CHARS = 64 * 1024

/** One statement as run, not yet redacted. */
export interface CapturedStatement {
  /** The SQL as prepared. */
  sql: string
  /** As given to the driver: positional (an array) or named (an object). */
  params: unknown
  /** When it started, on performance.now()'s clock (the writer makes it relative to the request's start). */
  startMs: number
  durationMs: number
  /** Rows returned (a read) or changed (a write); null when it failed. */
  rows: number | null
  /** The driver's message when it failed, else null. */
  error: string | null
}

/** What a request's capture holds of its statements (a StatementLog, or its copy in the writer thread). */
export interface CapturedStatements {
  /** The engine that ran them (how the runnable query quotes its values); null before the first. */
  engine: StatementEngine | null
  statements: CapturedStatement[]
  count: number
  totalMs: number
}

export type StatementEngine = 'sqlite' | 'postgres'

/** One request's statements, in the order they ran: at most MAX_STATEMENTS and MAX_SQL_CHARS of SQL. */
export class StatementLog implements CapturedStatements {
  engine: StatementEngine | null = null
  readonly statements: CapturedStatement[] = []
  /** Every statement run, kept or not (those beyond the caps are only counted). */
  count = 0
  /** The time of every statement run, kept or not. */
  totalMs = 0
  private sqlChars = 0

  add (engine: StatementEngine, sql: string, params: unknown, startedAt: number, error: unknown, rows: number | null): void {
    const durationMs = performance.now() - startedAt
    this.engine = engine
    this.count++
    this.totalMs += durationMs
    if (this.statements.length >= MAX_STATEMENTS || this.sqlChars + sql.length > MAX_SQL_CHARS) return
    this.sqlChars += sql.length
    const message = error === null ? null : error instanceof Error ? error.message : String(error)
    this.statements.push({ sql, params, startMs: startedAt, durationMs, rows, error: message })
  }
}

/** Runs a better-sqlite3 statement (synchronous), recorded in `log` when there is one. */
export function recordSync<T> (log: StatementLog | null, sql: string, params: unknown, run: () => T, rowsOf: (result: T) => number): T {
  if (log === null) return run()
  const startedAt = performance.now()
  let result: T
  try {
    result = run()
  } catch (err) {
    log.add('sqlite', sql, params, startedAt, err, null)
    throw err
  }
  log.add('sqlite', sql, params, startedAt, null, rowsOf(result))
  return result
}

/** Runs a node-postgres statement, recorded in `log` when there is one. */
export async function recordAsync<T> (log: StatementLog | null, sql: string, params: unknown, run: () => Promise<T>, rowsOf: (result: T) => number): Promise<T> {
  if (log === null) return await run()
  const startedAt = performance.now()
  let result: T
  try {
    result = await run()
  } catch (err) {
    log.add('postgres', sql, params, startedAt, err, null)
    throw err
  }
  log.add('postgres', sql, params, startedAt, null, rowsOf(result))
  return result
}
