import type { StoreReader, StoreTarget } from './engine.js'
import { SqliteReader } from './sqlite-reader.js'

/** The read side of whichever engine `target` names, opened and migrated. */
export async function openStoreReader (target: StoreTarget, onMigrated: (message: string) => void): Promise<StoreReader> {
  if (target.engine === 'sqlite') return await SqliteReader.open(target, onMigrated)
  const { PostgresReader } = await import('./postgres-reader.js')
  return await PostgresReader.open(target, onMigrated)
}
