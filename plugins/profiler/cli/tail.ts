import { setTimeout as sleep } from 'node:timers/promises'
import { MAX_LIMIT } from '../query/search-filters.js'
import type { ProfileSummary, SearchFilters } from '../profile.js'
import type { ReadOnlyStore } from '../engine/open-read-only.js'

/**
 * A profile is stored after its request ends, but sorted by when it started: each poll looks this
 * far back, so that a request that ran up to a minute is still shown once it is stored.
 */
const LOOK_BACK_MS = 60_000

export interface TailOptions {
  filters: SearchFilters
  intervalMs: number
  /** Stops the loop (Ctrl-C). */
  signal: AbortSignal
  /** Called with new profiles, oldest first. */
  print: (profiles: ProfileSummary[]) => void
}

/**
 * Prints the newest `filters.limit` matching profiles, then every new one as it is stored, until
 * `signal` aborts. Each poll reads at most 100 profiles (the search's limit): past 100 new profiles
 * per interval, the oldest of them are not shown.
 */
export async function tailProfiles (reader: ReadOnlyStore, { filters, intervalMs, signal, print }: TailOptions): Promise<void> {
  /** Tokens already printed (or seen at start), with their start time, forgotten once out of the window. */
  const seen = new Map<string, number>()
  const window = (): SearchFilters => ({ ...filters, start: Math.max(filters.start ?? 0, Date.now() - LOOK_BACK_MS), limit: MAX_LIMIT })
  const poll = async (search: SearchFilters, show: boolean): Promise<void> => {
    const fresh = (await reader.search(search)).filter(profile => !seen.has(profile.token)).reverse()
    for (const profile of fresh) seen.set(profile.token, Date.parse(profile.time))
    const oldest = Date.now() - LOOK_BACK_MS
    for (const [token, startMs] of seen) if (startMs < oldest) seen.delete(token)
    if (show && fresh.length > 0) print(fresh)
  }

  // What the look-back window holds now counts as seen: only what is stored from now on is new.
  await poll(window(), false)
  // Then the newest, printed whether seen or not. Read after the window, so that a profile stored
  // between the two reads is either among them or left unseen for the next poll: never skipped.
  const newest = (await reader.search(filters)).reverse()
  for (const profile of newest) seen.set(profile.token, Date.parse(profile.time))
  if (newest.length > 0) print(newest)
  while (!signal.aborted) {
    try {
      await sleep(intervalMs, undefined, { signal })
    } catch {
      return // aborted while waiting
    }
    await poll(window(), true)
  }
}
