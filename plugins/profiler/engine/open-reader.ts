import type { StoreReader, StoreTarget } from './contract.js'
import { SqliteReader } from './sqlite/reader.js'
import { SqliteReaderThread } from './sqlite/reader-thread.js'

/**
 * The read side of whichever engine `target` names, opened and migrated. SQLite reads run in a
 * reader thread unless `inline` (PROFILER_WRITER=inline: the profiler's store work on the request
 * thread, for tests that are not about threads); PostgreSQL's reads already wait on the network.
 */
export async function openStoreReader (target: StoreTarget, onMigrated: (message: string) => void, inline = false): Promise<StoreReader> {
  if (target.engine === 'sqlite') return inline ? await SqliteReader.open(target, onMigrated) : await SqliteReaderThread.open(target, onMigrated)
  const { PostgresReader } = await import('./postgres/reader.js')
  return await PostgresReader.open(target, onMigrated)
}
