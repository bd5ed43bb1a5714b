// run-suite: shares a process
// The SQLite writer holds the count and byte bounds inside each batch's transaction (SqliteWriter:
// makeRoom before the batch, enforceCount after it), not only in the retention step that follows
// every write. That step deletes at most PRUNE_BATCH (500) profiles, which the app's batches (500 at
// most) never exceed: the other retention tests pass with either mechanism disabled. Batches larger
// than one step's deletions (the contract takes them: store-contract writes 1,201) show the
// difference, read from a connection of their own after each write, the background loop held off.
// Measured with each mechanism disabled: 100 then 200 profiles at a bound of 50; 1.14, 1.39, 1.66 ×
// the byte bound after the three batches.
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

/** `count` profiles after the `first`-th, one millisecond apart, with about `panelBytes` of incompressible panels each. */
function batchOf (first: number, count: number, panelBytes: number): ProfileRecord[] {
  const startMs = Date.now() - 60_000
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
