// Issue 20's scanner runs against a real server: distinct 200-character paths (every answer a 404)
// into an empty SQLite store with a byte bound, the store's used bytes and profile count sampled
// from another connection all along and for a while after the burst.
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startBenchServer } from './server-process.js'
import { round } from './stats.js'

export interface BurstResult {
  maxBytes: number
  connections: number
  requests: number
  requestsPerSecond: number
  /** The most bytes used at once (page_count - freelist_count), during the burst and after. */
  peakUsedBytes: number
  /** Seconds from the start until the peak. */
  peakAtSeconds: number
  /** Used bytes and profiles at the end of the observation after the burst. */
  finalUsedBytes: number
  finalProfiles: number
  /** The most profiles seen, and the fewest once the bytes had first reached the pruning target (90% of the bound). */
  maxProfiles: number
  minProfilesOnceFull: number
}

const SAMPLE_MS = 200
const CHARACTERS = 'abcdefghijklmnopqrstuvwxyz0123456789'

function randomTail (length: number): string {
  let tail = ''
  for (let i = 0; i < length; i++) tail += CHARACTERS[Math.floor(Math.random() * CHARACTERS.length)]
  return tail
}

function usage (path: string): { used: number, profiles: number } | null {
  try {
    const db = new Database(path, { readonly: true, timeout: 100 })
    try {
      const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number)
      return { used: pages * (db.pragma('page_size', { simple: true }) as number), profiles: db.prepare('SELECT count(*) FROM profiles').pluck().get() as number }
    } finally {
      db.close()
    }
  } catch {
    return null // not created yet, or busy for a moment
  }
}

/** `requests` GETs over `connections` into a fresh store bounded at `maxBytes`, observed for `afterSeconds` more. */
export async function measureScannerBurst (parent: string, maxBytes: number, connections: number, requests: number, afterSeconds: number): Promise<BurstResult> {
  const dir = mkdtempSync(join(parent, 'burst-'))
  const path = join(dir, 'profiler.sqlite')
  const server = await startBenchServer({ PROFILER: 'on', DATABASE_PATH: join(dir, 'app.sqlite'), PROFILER_DATABASE_PATH: path, PROFILER_MAX_BYTES: String(maxBytes) })
  const started = performance.now()
  const seen = { peak: 0, peakAt: 0, maxProfiles: 0, minFull: Infinity, full: false, last: { used: 0, profiles: 0 } }
  const sample = (): void => {
    const now = usage(path)
    if (now === null) return
    if (now.used > seen.peak) { seen.peak = now.used; seen.peakAt = (performance.now() - started) / 1000 }
    seen.maxProfiles = Math.max(seen.maxProfiles, now.profiles)
    seen.full ||= now.used >= maxBytes * 0.9
    if (seen.full) seen.minFull = Math.min(seen.minFull, now.profiles)
    seen.last = now
  }
  const sampler = setInterval(sample, SAMPLE_MS)
  try {
    let n = 0
    const result = await autocannon({ url: server.url, connections, amount: requests, requests: [{ setupRequest: request => ({ ...request, method: 'GET', path: `/u/${n++}/${randomTail(200)}` }) }] })
    // What the store holds once the writer and retention have worked off the burst.
    await new Promise(resolve => setTimeout(resolve, afterSeconds * 1000))
    sample()
    return {
      maxBytes,
      connections,
      requests,
      requestsPerSecond: round(result.requests.average, 0),
      peakUsedBytes: seen.peak,
      peakAtSeconds: round(seen.peakAt, 1),
      finalUsedBytes: seen.last.used,
      finalProfiles: seen.last.profiles,
      maxProfiles: seen.maxProfiles,
      minProfilesOnceFull: seen.minFull === Infinity ? 0 : seen.minFull
    }
  } finally {
    clearInterval(sampler)
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
