// EXPLAIN QUERY PLAN of one statement on the advisors' SQLite file, on a read-only connection of its
// own (opened for this one plan, closed after it): SQLite itself refuses any write on it, and
// EXPLAIN QUERY PLAN only plans, it never runs the statement.
import BetterSqlite3 from 'better-sqlite3'
import { HttpError } from '../../../../lib/http-error.js'
import { databaseUnavailable, isDatabaseUnavailable } from '../../../../lib/sqlite/faults.js'
import type { DbStatement, Param } from './schema.js'
import { cannotExplain } from './explain-refusal.js'

/**
 * How long opening and planning wait for another connection's lock. better-sqlite3 waits on the
 * request thread: kept short (with WAL a reader waits only in rare moments: a recovery, a
 * checkpoint's truncation), past it the page is the database's 503.
 */
const BUSY_TIMEOUT_MS = 250

interface PlanRow { id: number, parent: number, detail: string }

/** better-sqlite3 binds no booleans: SQLite stores them as 1 and 0. */
const bindable = (value: Param): string | number | null => typeof value === 'boolean' ? Number(value) : value

/** The plan's rows as lines, each indented under its parent (as the sqlite3 shell draws the tree). */
function planLines (rows: PlanRow[]): string[] {
  const depth = new Map<number, number>([[0, -1]])
  return rows.map(row => {
    const level = (depth.get(row.parent) ?? -1) + 1
    depth.set(row.id, level)
    return `${'   '.repeat(level)}${row.detail}`
  })
}

export function explainOnSqlite (path: string, statement: DbStatement): string[] {
  // Another connection to ":memory:" is another, empty, database.
  if (path === ':memory:') throw cannotExplain('the advisors\' database is in memory (DATABASE_PATH=:memory:), which no other connection can read')
  let db: BetterSqlite3.Database
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS })
  } catch (err) {
    throw databaseUnavailable(err)
  }
  try {
    // prepare() refuses a second statement in the text; a statement that would write is refused here
    // before its plan is asked for (the connection would refuse to run it anyway).
    const prepared = db.prepare(statement.sql)
    if (!prepared.readonly || !prepared.reader) throw cannotExplain('SQLite says it is not a read-only query')
    const explain = db.prepare<unknown[], PlanRow>(`EXPLAIN QUERY PLAN ${statement.sql}`)
    const { params } = statement
    const rows = Array.isArray(params)
      ? explain.all(...params.map(bindable))
      : explain.all(Object.fromEntries(Object.entries(params).map(([name, value]) => [name, bindable(value)])))
    return planLines(rows)
  } catch (err) {
    if (err instanceof HttpError) throw err
    if (isDatabaseUnavailable(err as Error)) throw databaseUnavailable(err)
    // An unknown table or column (a migration since), a parameter missing: what SQLite said.
    throw cannotExplain(`SQLite could not plan it: ${(err as Error).message}`)
  } finally {
    db.close()
  }
}
