// run-suite: shares a process
// The byte bound on PostgreSQL while something else holds a partition's VACUUM lock (issue 38: a
// loaded run saw 9.3 MB at an 8 MiB bound after one batch, and passed again). Before a batch, the
// writer deletes the oldest profiles and vacuums their tables so that the batch reuses their space;
// a VACUUM that skipped a table another session held (SKIP_LOCKED: an autovacuum of the partition,
// another instance's VACUUM), or that ran before the deletes were committed, left the space
// unusable, and the batch grew the tables instead. Here a session holds the partitions' VACUUM lock
// (SHARE UPDATE EXCLUSIVE, as an autovacuum does) while a batch is written, and lets it go once a
// VACUUM waits for it: the condition a loaded machine produces by chance, made every time.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import type { StoreWriter } from '../../plugins/profiler/engine/contract.js'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import type { ProfileRecord } from '../../plugins/profiler/profile.js'
import { monitorProfile } from '../helpers/monitor-profile.js'
import { needsPostgres, queryOn, SCHEMA_BYTES_SQL, startPostgres } from '../helpers/postgres.js'
import { waitFor } from '../helpers/wait-for.js'

const BOUND = 8 * 1024 * 1024
const BATCH = 100
/** Batches of 60 KB profiles that fill the store past its bound (pruning for size under way) before the lock is taken. */
const FILL_BATCHES = 4
/** A VACUUM waiting for the lock the session holds on a table of the profiles (a plain VACUUM's mode: VACUUM FULL asks for more). */
const VACUUM_WAITING_SQL = `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
  WHERE NOT l.granted AND l.mode = 'ShareUpdateExclusiveLock' AND (c.relname LIKE 'profile_data%' OR c.relname LIKE 'profiles%')`

if (needsPostgres(t)) {
  t.test('a batch written while another session holds the partitions\' VACUUM lock: the bytes stay within 1.1 × the bound', async t => {
    const cluster = await startPostgres(t)
    const url = await cluster.createStore('vacuum_lock')
    const limits = { maxProfiles: 100_000, maxAgeMs: 86_400_000, maxBytes: BOUND, statsMaxAgeMs: 30 * 86_400_000 }
    const writer: StoreWriter = await openStoreWriter({ engine: 'postgres', url }, 'A', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
    t.teardown(async () => { await writer.close() })
    const startMs = Date.now()
    let n = 0
    // Incompressible (TOAST compresses repeated text): about 60 KB a profile.
    const batch = (): ProfileRecord[] => Array.from({ length: BATCH }, () => monitorProfile(++n, startMs, 'v', JSON.stringify({ request: { content: randomBytes(30 * 1024).toString('hex') } })))
    const bytes = async (): Promise<number> => Number((await queryOn(url, SCHEMA_BYTES_SQL))[0]?.bytes)
    for (let i = 0; i < FILL_BATCHES; i++) {
      await writer.write(batch())
      await writer.prune(startMs + n)
    }
    const filled = await bytes()
    t.ok(filled <= BOUND * 1.1, `filled and pruned: ${filled} bytes, ${writer.count} profiles`)

    // The partitions' VACUUM lock, held as an autovacuum holds it (LOCK takes no snapshot: the
    // deleted rows stay removable), until a VACUUM waits for it or the batch is written and pruned.
    const holder = new pg.Client({ connectionString: url })
    const observer = new pg.Client({ connectionString: url })
    await holder.connect()
    await observer.connect()
    t.teardown(async () => { await Promise.all([holder.end(), observer.end()]) })
    await holder.query('BEGIN')
    await holder.query('LOCK TABLE profiles, profile_data IN SHARE UPDATE EXCLUSIVE MODE')
    let held = true
    const release = async (): Promise<void> => {
      if (!held) return
      held = false
      await holder.query('COMMIT')
    }
    let written = false
    const watcher = waitFor(async () => written || Number((await observer.query<{ n: number }>(VACUUM_WAITING_SQL)).rows[0]?.n) > 0, { timeoutMs: 120_000 })
      .then(release)
    await writer.write(batch())
    await writer.prune(startMs + n)
    const after = await bytes()
    written = true
    await watcher
    await release()
    t.ok(after <= BOUND * 1.1, `after a batch of ${BATCH} written under the held lock, and pruned: ${after} bytes (bound ${BOUND} × 1.1), ${writer.count} profiles`)
  })
}
