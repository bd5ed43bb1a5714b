// Messages between the request thread's SqliteReaderThread and the reader worker (reader-worker.ts).
import type { SearchFilters } from '../../profile.js'
import type { RollupRange } from '../../stats/trend.js'
import type { StampedTallies } from '../../stats/missing.js'

/** One read, by the name of the StoreReader method it stands for (tokens: every stored token at once). */
export type SqliteReaderCall =
  | { method: 'search', args: [SearchFilters] }
  | { method: 'searchHar', args: [SearchFilters, string] }
  | { method: 'find' | 'latest', args: [string] }
  | { method: 'neighbours', args: [string, string] }
  | { method: 'routeStats', args: [number, number, string | undefined, StampedTallies[] | undefined] }
  | { method: 'rollupPeriods', args: [RollupRange] }
  | { method: 'storeBytes' | 'deployments' | 'tokens' | 'close', args: [] }

export type SqliteReaderRequest = SqliteReaderCall & { id: number }

/** An error as it crosses the thread: enough for the fault rules (name, code, message, and its causes: isStorageFault walks them). */
export interface CopiedError { name: string, message: string, code?: string, cause?: CopiedError }

export type SqliteReaderAnswer =
  | { type: 'opened', migrated: string | null }
  | { type: 'open-failed', error: CopiedError }
  | { type: 'done', id: number, value: unknown }
  | { type: 'failed', id: number, error: CopiedError }

export function copyError (err: unknown, depth = 0): CopiedError {
  const error: Error & { code?: unknown } = err instanceof Error ? err : new Error(String(err))
  return {
    name: error.name,
    message: error.message,
    ...(typeof error.code === 'string' ? { code: error.code } : {}),
    ...(error.cause instanceof Error && depth < 5 ? { cause: copyError(error.cause, depth + 1) } : {})
  }
}

/** The copied error as an Error again, with its name and code (what isStorageFault reads). */
export function revivedError ({ name, message, code, cause }: CopiedError): Error {
  const error = new Error(message, cause === undefined ? undefined : { cause: revivedError(cause) }) as Error & { code?: string }
  error.name = name
  if (code !== undefined) error.code = code
  return error
}
