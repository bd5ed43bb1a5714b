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

/** What the writer thread reads of a request's statements: a StatementLog rebuilt (capturedStatements). */
export interface CapturedStatements {
  /** The engine that ran them (how the runnable query quotes its values); null before the first. */
  engine: StatementEngine | null
  statements: CapturedStatement[]
  count: number
  totalMs: number
}

export type StatementEngine = 'sqlite' | 'postgres'

/** Slots a kept statement takes in StatementLog.kept: its SQL, parameters, start, duration and rows. */
export const STATEMENT_SLOTS = 5

/**
 * One request's statements, in the order they ran: at most MAX_STATEMENTS and MAX_SQL_CHARS of SQL.
 * Kept flat, STATEMENT_SLOTS slots of one array a statement, as the logs panel keeps its lines:
 * the capture crosses to the writer thread by structured clone, which pays per object and per key,
 * and a statement object each cost more to make and keep until its batch left. The writer rebuilds
 * a statement object each (capturedStatements) before the panel reads them.
 */
export class StatementLog {
  engine: StatementEngine | null = null
  /** Every statement run, kept or not (those beyond the caps are only counted). */
  count = 0
  /** The time of every statement run, kept or not. */
  totalMs = 0
  /**
   * The kept statements, STATEMENT_SLOTS slots each: the SQL as prepared; the parameters as given
   * to the driver (positional, an array, or named, an object); the start on performance.now()'s
   * clock; the duration; the rows returned or changed, or the driver's message when it failed.
   */
  readonly kept: unknown[] = []
  private sqlChars = 0

  add (engine: StatementEngine, sql: string, params: unknown, startedAt: number, error: unknown, rows: number | null): void {
    const durationMs = performance.now() - startedAt
    this.engine = engine
    this.count++
    this.totalMs += durationMs
    if (this.kept.length >= MAX_STATEMENTS * STATEMENT_SLOTS || this.sqlChars + sql.length > MAX_SQL_CHARS) return
    this.sqlChars += sql.length
    // A failure's message in the rows' place: rows is null then (the drivers give none).
    const outcome = error === null ? rows : error instanceof Error ? error.message : String(error)
    this.kept.push(sql, params, startedAt, durationMs, outcome)
  }
}

/** A StatementLog as the writer thread receives it (its structured clone: the same fields, plain). */
export type ClonedStatementLog = Pick<StatementLog, 'engine' | 'count' | 'totalMs' | 'kept'> & { sqlChars: number }

/** In the writer: a statement log's clone as the panel reads it, a statement object each, as the clone of those objects gave them before. */
export function capturedStatements (log: ClonedStatementLog): CapturedStatements & { sqlChars: number } {
  const statements: CapturedStatement[] = []
  const { kept } = log
  for (let at = 0; at < kept.length; at += STATEMENT_SLOTS) {
    const outcome = kept[at + 4] as number | string | null
    const failed = typeof outcome === 'string'
    statements.push({
      sql: kept[at] as string,
      params: kept[at + 1],
      startMs: kept[at + 2] as number,
      durationMs: kept[at + 3] as number,
      rows: failed ? null : outcome,
      error: failed ? outcome : null
    })
  }
  return { engine: log.engine, statements, count: log.count, totalMs: log.totalMs, sqlChars: log.sqlChars }
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
