// The byte bound holds when the profiles grow while pruning for size goes on (a reviewer's
// reproduction of issue 37's floor): small requests fill the store, then requests with 60 KB
// bodies follow. The floor, a profile count fixed when pruning began, once held 996 profiles of
// 60 KB at an 8 MiB bound (a 60.7 MiB file). The floor is bounded in bytes too: whatever the
// profiles' size, they are pruned down to the bound.
import { randomBytes } from 'node:crypto'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import type { StoreWriter } from '../../plugins/profiler/engine/contract.js'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import type { ProfileRecord } from '../../plugins/profiler/profile.js'
import { monitorProfile } from '../helpers/monitor-profile.js'
import { queryOn, SCHEMA_BYTES_SQL } from '../helpers/postgres.js'
import { storeEngines, storeTarget } from '../helpers/store-engines.js'

const engines = storeEngines(t)
const BOUND = 8 * 1024 * 1024
/**
 * Profiles of each size: 6,000 of 1 KB fill the store past its bound, so pruning has begun; then
 * 600 of 60 KB, 36 MB written, more than 4 times the bound (the reviewer's run had 6,000 of each;
 * the old floor kept 996 of them, 60.7 MiB: it is overrun within the first few hundred). A floor
 * not bounded in bytes (floorWithinBytes giving the count back) fails here on both engines:
 * SQLite 2 batches over (21.2 MB at most), PostgreSQL 3 (18.1 MB).
 */
const COUNTS: Array<[number, number]> = [[1024, 6000], [60 * 1024, 600]]
const BATCH = 200
// 42 MB written to PostgreSQL with a VACUUM per batch: tens of seconds on a busy machine.
t.setTimeout(300_000)

/**
 * What the store takes: the SQLite file's pages as a reader sees them (its WAL's newer pages
 * included: the file once checkpointed), or every table of the PostgreSQL schema.
 */
async function diskBytes (env: Record<string, string>): Promise<number> {
  const target = storeTarget(env)
  if (target.engine === 'postgres') return Number((await queryOn(target.url, SCHEMA_BYTES_SQL))[0]?.bytes)
  const db = new BetterSqlite3(target.path, { readonly: true })
  try {
    return (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
  } finally {
    db.close()
  }
}

/** Incompressible panel text of about `bytes` (PostgreSQL's TOAST compresses repeated text). */
function panelsOf (bytes: number): string {
  return JSON.stringify({ request: { content: randomBytes(Math.ceil(bytes / 2)).toString('hex') } })
}

t.jobs = 2
for (const engine of engines) {
  t.test(`${engine.name}: ~1 KB profiles, then ~60 KB ones, at an 8 MiB bound: the bytes stay within the bound's tolerance`, { skip: engine.skip, buffered: true }, async t => {
    const env = await engine.fresh(t)
    const limits = { maxProfiles: 100_000, maxAgeMs: 86_400_000, maxBytes: BOUND, statsMaxAgeMs: 30 * 86_400_000 }
    const writer: StoreWriter = await openStoreWriter(storeTarget(env), 'A', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
    t.teardown(async () => { await writer.close() })
    // SQLite gives pages back; PostgreSQL's tables do not shrink (plain VACUUM makes space
    // reusable), and the heap and index pages the small profiles held are no use to 60 KB panels,
    // which go to TOAST: it held 1.44-1.57 × the bound until retention rewrote the tables once the
    // count held was reached and the store was still over its bound.
    const tolerance = 1.1
    const startMs = Date.now()
    let n = 0
    const over: string[] = []
    let maxBytes = 0
    for (const [size, count] of COUNTS) {
      for (let sent = 0; sent < count; sent += BATCH) {
        const batch: ProfileRecord[] = []
        for (let i = 0; i < BATCH; i++, n++) {
          batch.push(monitorProfile(n, startMs, 'g', panelsOf(size)))
        }
        await writer.write(batch)
        await writer.prune(startMs + n)
        const bytes = await diskBytes(env)
        maxBytes = Math.max(maxBytes, bytes)
        if (bytes > BOUND * tolerance) over.push(`after ${n} profiles (${size} bytes each): ${bytes} bytes, ${writer.count} profiles`)
      }
      t.comment(`${engine.name}: after the ${size}-byte profiles: ${writer.count} profiles, ${await diskBytes(env)} bytes`)
    }
    t.same(over.slice(0, 5), [], `the store stayed within ${tolerance} × ${BOUND} bytes after each batch's pruning (max ${maxBytes}, ${over.length} batches over)`)
    t.ok(writer.count >= 50, `${writer.count} profiles of 60 KB kept: about what fits, not emptied`)
  })
}
