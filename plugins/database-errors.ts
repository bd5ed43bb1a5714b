import { HttpError } from './http-error.js'

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
