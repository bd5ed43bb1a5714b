import { isPostgresFault } from '../../../lib/postgres/faults.js'
import { isStorageFault } from '../../../lib/sqlite/faults.js'
import type { RetentionLimits, StoreTarget, StoreWriter, WriterEvents } from './contract.js'
import { SqliteWriter } from './sqlite/writer.js'

/** The write side of whichever engine `target` names, opened and migrated (PostgreSQL's client is loaded only when used). */
export async function openStoreWriter (target: StoreTarget, deployment: string, retention: RetentionLimits, retentionIntervalMs: number, events: WriterEvents): Promise<StoreWriter> {
  if (target.engine === 'sqlite') return SqliteWriter.open(target, deployment, retention, retentionIntervalMs, events)
  const { PostgresWriter } = await import('./postgres/writer.js')
  return await PostgresWriter.open(target, deployment, retention, retentionIntervalMs, events)
}

/** Whether a store that could not be opened may open later (a fault of the engine), rather than never. */
export function isOpenFault (target: StoreTarget, err: unknown): boolean {
  return target.engine === 'postgres' ? isPostgresFault(err) : isStorageFault(err)
}
