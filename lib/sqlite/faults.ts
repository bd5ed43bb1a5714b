import { HttpError } from '../http-error.js'

/** SQLite result codes that say the file is unusable now (not that our SQL is wrong). */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CORRUPT|NOTADB|CANTOPEN|FULL|READONLY|PROTOCOL)/

/** The 503 of a request that needs the database while it is unavailable; the cause says why (operators only). */
export function databaseUnavailable (cause: unknown): HttpError {
  return new HttpError(503, 'The advisor database is unavailable at the moment; try again later', { cause, name: 'ServiceUnavailableError' })
}

/** Whether an error thrown by a query means the database is unusable (rather than a bug). */
export function isDatabaseUnavailable (error: Error & { code?: unknown }): boolean {
  return error.name === 'SqliteError' && typeof error.code === 'string' && UNAVAILABLE_CODES.test(error.code)
}

/**
 * Whether an error, or one of its causes, is the file or the file system failing (a SQLite
 * "unusable" code, or an fs error such as ENOTDIR/EACCES/EROFS/ENOSPC while opening): a fault
 * that may clear, as opposed to a bug that would fail the same way again.
 */
export function isStorageFault (error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as Error & { code?: unknown }).code
    if (isDatabaseUnavailable(current) || (typeof code === 'string' && /^E[A-Z]+$/.test(code))) return true
  }
  return false
}

/** SQLite result codes about the values written: a constraint, a type mismatch, a value too big, a bad bind. */
const DATA_CODES = /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/

/**
 * Whether an error may be about the data written rather than the file: a SQLite data code, or the
 * driver refusing a value (better-sqlite3 throws a TypeError for a value it cannot bind).
 */
export function isSqliteDataError (error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true
  const code = (error as { code?: unknown } | null)?.code
  return error instanceof Error && error.name === 'SqliteError' && typeof code === 'string' && DATA_CODES.test(code)
}
