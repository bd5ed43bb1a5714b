// How the writer stores a batch so that one bad profile never costs the others, and a store that
// fails never costs any: a batch is retried unless its error is proven to be about one profile.
import type { ProfileRecord } from '../profile.js'
import type { StoreWriter } from '../engine/contract.js'

export interface SetAside { token: string, reason: string }

export type BatchOutcome =
  /** Everything settled: stored, rejected (token taken) or set aside. */
  | { ok: true, written: number, rejected: string[], setAside: SetAside[] }
  /** `retry` (tokens) is to be tried again, because of `error`; the rest of the batch is settled. */
  | { ok: false, written: number, rejected: string[], setAside: SetAside[], error: unknown, retry: string[] }

/**
 * Writes `batch` in one transaction. When that fails with an error the engine classifies as
 * being about the data (a constraint, a value out of range: `isContentError`), each profile is
 * written again alone, in its own transaction: one that fails alone with such an error is
 * proven to be the cause and is set aside; the others are stored. Any other error (the store
 * failing, or anything not classified) stops there, and what is not stored yet is retried.
 */
export async function writeBatch (store: StoreWriter, batch: ProfileRecord[]): Promise<BatchOutcome> {
  try {
    const { written, rejected } = await store.write(batch)
    return { ok: true, written, rejected, setAside: [] }
  } catch (err) {
    if (!store.isContentError(err)) return { ok: false, written: 0, rejected: [], setAside: [], error: err, retry: batch.map(profile => profile.token) }
  }
  const outcome = { written: 0, rejected: [] as string[], setAside: [] as SetAside[] }
  for (const [index, profile] of batch.entries()) {
    try {
      const { written, rejected } = await store.write([profile])
      outcome.written += written
      outcome.rejected.push(...rejected)
    } catch (err) {
      if (!store.isContentError(err)) return { ok: false, ...outcome, error: err, retry: batch.slice(index).map(profile => profile.token) }
      outcome.setAside.push({ token: profile.token, reason: `profile ${profile.token} could not be stored: ${(err as Error).message}` })
    }
  }
  return { ok: true, ...outcome }
}
