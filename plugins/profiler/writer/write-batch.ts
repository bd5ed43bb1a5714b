// How the writer stores a batch so that one bad profile never costs the others, and a store that
// fails never costs any: a batch is retried unless its error is proven to be about one profile.
import type { ProfileRecord } from '../profile.js'
import type { StatisticsStamp, StoreWriter } from '../engine/contract.js'
import type { StatisticsOnly } from '../stats/rollup.js'
import type { MissingWindow } from '../stats/missing.js'

export interface SetAside { token: string, reason: string }

/** What became of the batch's statistics-only requests: null when counted, else why they were set aside. */
interface StatisticsOutcome { statisticsLost?: string }

export type BatchOutcome =
  /** Everything settled: stored, rejected (token taken) or set aside. */
  | { ok: true, written: number, rejected: string[], setAside: SetAside[] } & StatisticsOutcome
  /**
   * `retry` (tokens) is to be tried again, because of `error`; the rest of the batch is settled. The
   * statistics-only requests are retried too unless `statisticsSettled`.
   */
  | { ok: false, written: number, rejected: string[], setAside: SetAside[], error: unknown, retry: string[], statisticsSettled: boolean } & StatisticsOutcome

/** Writes the tallies of missing requests alone; null when stored, else why not (a fault is thrown: the batch is retried). */
async function writeTalliesAlone (store: StoreWriter, stamp: StatisticsStamp | undefined, missing: MissingWindow[]): Promise<string | null> {
  try {
    await store.write([], [], stamp, missing)
    return null
  } catch (err) {
    if (!store.isContentError(err)) throw err
    return `the windows of ${missing.reduce((sum, window) => sum + window.count, 0)} request(s) missing could not be stored: ${(err as Error).message}`
  }
}

/**
 * Writes `batch` in one transaction. When that fails with an error the engine classifies as
 * being about the data (a constraint, a value out of range: `isContentError`), each profile is
 * written again alone, in its own transaction: one that fails alone with such an error is
 * proven to be the cause and is set aside; the others are stored. Any other error (the store
 * failing, or anything not classified) stops there, and what is not stored yet is retried.
 * The requests recorded for the statistics only go with the batch's transaction; after a content
 * error, in a transaction of their own first (set aside together if that fails with one too).
 * Their `stamp` goes with them each time: counted once, however often the batch is written; so do
 * the tallies of requests that could not be counted (`missing`).
 */
export async function writeBatch (store: StoreWriter, batch: ProfileRecord[], statisticsOnly: StatisticsOnly[] = [], stamp?: StatisticsStamp, missing: MissingWindow[] = []): Promise<BatchOutcome> {
  try {
    const { written, rejected } = await store.write(batch, statisticsOnly, stamp, missing)
    return { ok: true, written, rejected, setAside: [] }
  } catch (err) {
    if (!store.isContentError(err)) return { ok: false, written: 0, rejected: [], setAside: [], error: err, retry: batch.map(profile => profile.token), statisticsSettled: false }
  }
  const outcome: { written: number, rejected: string[], setAside: SetAside[], statisticsSettled: true } & StatisticsOutcome = { written: 0, rejected: [], setAside: [], statisticsSettled: true }
  if (statisticsOnly.length > 0 || missing.length > 0) {
    try {
      await store.write([], statisticsOnly, stamp, missing)
    } catch (err) {
      if (!store.isContentError(err)) return { ok: false, written: 0, rejected: [], setAside: [], error: err, retry: batch.map(profile => profile.token), statisticsSettled: false }
      outcome.statisticsLost = `${statisticsOnly.length} request(s) could not be counted in the statistics: ${(err as Error).message}`
      // The tallies of requests missing went with them: written alone (same stamp), so that the
      // windows they lack still say so. The requests just lost are tallied by the queue.
      const lostTallies = statisticsOnly.length > 0 && missing.length > 0 ? await writeTalliesAlone(store, stamp, missing) : null
      if (lostTallies !== null) outcome.statisticsLost += `; and ${lostTallies}`
    }
  }
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
