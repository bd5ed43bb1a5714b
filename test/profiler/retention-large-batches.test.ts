// run-suite: shares a process
// The SQLite writer holds the count and byte bounds inside each batch's transaction (SqliteWriter:
// makeRoom before the batch, enforceCount after it), not only in the retention step that follows
// every write. That step deletes up to PRUNE_BATCH (500) profiles, as many as the app's largest
// batch: the other retention tests pass with either mechanism disabled. Two ways past the step show
// the difference, read from a connection of their own after each write, the background loop held
// off: batches larger than one step's deletions (the contract takes them: store-contract writes
// 1,201), and app-sized batches whose step goes to the statistics' age bound first. Measured with
// enforceCount disabled: 100 then 200 profiles at a bound of 50, and 500, 1,000, 1,500; with
// makeRoom disabled: 1.20-1.75 × the 2 MiB bound, and up to 2.5 × the 1 MiB one.
import { mkdtempSync, rmSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t, { type Test } from 'tap'
import type { RetentionLimits, StoreWriter } from '../../plugins/profiler/engine/contract.js'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { PRUNE_BATCH } from '../../plugins/profiler/engine/retention-policy.js'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../plugins/profiler/profile.js'

const DAY_MS = 86_400_000

/** A writer on a new SQLite file; its background loop waits an hour, so only the writes prune. */
async function openWriter (t: Test, limits: Partial<RetentionLimits>): Promise<{ writer: StoreWriter, path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'large-batches-'))
  const path = join(dir, 'profiler.sqlite')
  const writer = await openStoreWriter({ engine: 'sqlite', path }, 'A', { maxProfiles: 1_000_000, maxAgeMs: DAY_MS, maxBytes: 1024 ** 3, statsMaxAgeMs: 30 * DAY_MS, ...limits },
    3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
  t.teardown(async () => {
    await writer.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return { writer, path }
}

/** What a reader of the file sees: its profiles and its pages' bytes (the WAL's newer pages included). */
function seen (path: string): { profiles: number, bytes: number } {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
    return { profiles: db.prepare('SELECT count(*) FROM profiles').pluck().get() as number, bytes }
  } finally {
    db.close()
  }
}

/** `count` profiles after the `first`-th, one millisecond apart from `agoMs` ago on, with about `panelBytes` of incompressible panels each. */
function batchOf (first: number, count: number, panelBytes: number, agoMs = 60_000): ProfileRecord[] {
  const startMs = Date.now() - agoMs
  return Array.from({ length: count }, (_, i) => ({
    id: (startMs + first + i) * ID_SLOTS_PER_MS,
    token: `lb${(first + i).toString(16).padStart(6, '0')}`,
    parentToken: null,
    type: 'request',
    ip: '127.0.0.1',
    method: 'GET',
    url: 'http://localhost/large-batch',
    statusCode: 200,
    durationMs: 1,
    route: '/large-batch',
    panels: JSON.stringify({ request: { content: randomBytes(Math.ceil(panelBytes / 2)).toString('hex') } })
  }))
}

const LARGE = PRUNE_BATCH + 100

t.test(`a batch of ${LARGE} at a count bound of 50: the file holds 50 once it is written`, async t => {
  const { writer, path } = await openWriter(t, { maxProfiles: 50 })
  for (let written = 0; written < 2 * LARGE; written += LARGE) {
    await writer.write(batchOf(written, LARGE, 16))
    t.equal(seen(path).profiles, 50, `after ${written + LARGE} profiles written`)
  }
})

t.test('batches of 1,200 at a 2 MiB bound: the file stays within the bound after each', async t => {
  const bound = 2 * 1024 * 1024
  const { writer, path } = await openWriter(t, { maxBytes: bound })
  // ~3,000 profiles of ~1 KB written in the app's batches fill the store past its bytes target.
  let written = 0
  for (; written < 3000; written += PRUNE_BATCH) await writer.write(batchOf(written, PRUNE_BATCH, 1024))
  const filled = seen(path)
  t.ok(filled.bytes > bound * 0.7, `filled: ${filled.profiles} profiles, ${filled.bytes} bytes`)
  for (let batches = 0; batches < 3; batches++, written += 1200) {
    await writer.write(batchOf(written, 1200, 1024))
    const after = seen(path)
    t.ok(after.bytes <= bound, `after a batch of 1,200: ${after.bytes} bytes, ${after.profiles} profiles`)
  }
})

// Batches of the app's size, whose step goes to another bound: each step does one thing, and the
// statistics' age comes first. Requests three hours old (a queue written out after an outage) with
// statistics kept an hour: every batch adds rollup rows the step after it deletes, and nothing else.
const STATS_BOUND = { maxAgeMs: DAY_MS, statsMaxAgeMs: 3_600_000 }
const THREE_HOURS_MS = 3 * 3_600_000

t.test(`batches of ${PRUNE_BATCH} while each step deletes expired statistics: the file holds 50 after each`, async t => {
  const { writer, path } = await openWriter(t, { maxProfiles: 50, ...STATS_BOUND })
  for (let written = 0; written < 3 * PRUNE_BATCH; written += PRUNE_BATCH) {
    await writer.write(batchOf(written, PRUNE_BATCH, 16, THREE_HOURS_MS))
    t.equal(seen(path).profiles, 50, `after ${written + PRUNE_BATCH} profiles written`)
  }
})

t.test(`batches of ${PRUNE_BATCH} while each step deletes expired statistics: the file stays within a 1 MiB bound after each`, async t => {
  const bound = 1024 * 1024
  const { writer, path } = await openWriter(t, { maxBytes: bound, ...STATS_BOUND })
  let peak = 0
  // 3,000 profiles of ~1 KB: about three times what fits.
  for (let written = 0; written < 3000; written += PRUNE_BATCH) {
    await writer.write(batchOf(written, PRUNE_BATCH, 1024, THREE_HOURS_MS))
    const after = seen(path)
    peak = Math.max(peak, after.bytes)
    t.ok(after.bytes <= bound, `after ${written + PRUNE_BATCH} profiles: ${after.bytes} bytes, ${after.profiles} profiles`)
  }
  t.ok(peak > bound * 0.7, `the store reached its bound (peak ${peak} bytes)`)
})
