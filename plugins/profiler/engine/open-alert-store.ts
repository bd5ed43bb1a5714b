import type { AlertReader, AlertStore } from './alert-store.js'
import type { StoreTarget } from './contract.js'
import { SqliteAlertStore } from './sqlite/alert-store.js'

/** The alerts' side of the store `target` names, opened and migrated (the service). */
export async function openAlertStore (target: StoreTarget): Promise<AlertStore> {
  if (target.engine === 'sqlite') return SqliteAlertStore.open(target.path)
  const { PostgresAlertStore } = await import('./postgres/alert-store.js')
  return await PostgresAlertStore.open(target.url)
}

/** The alerts' reads on a store the service migrated, never written (the command line). */
export async function openAlertReader (target: StoreTarget): Promise<AlertReader> {
  if (target.engine === 'sqlite') return SqliteAlertStore.openReadOnly(target.path)
  const { PostgresAlertStore } = await import('./postgres/alert-store.js')
  return PostgresAlertStore.openReadOnly(target.url)
}
