import type pg from 'pg'
import type { RetentionLimits } from '../contract.js'
import { inTransaction } from '../../../../lib/postgres/pool.js'
import { ID_SLOTS_PER_MS } from '../../profile.js'
import { PROFILE_SIDE_TABLES, SIDE_TABLES, storeAndStatisticsBytes, type Partition, type Partitions } from './partitions.js'
import { coarsenStatistics, deleteExpiredRollups } from './rollups.js'
import { prepared } from './prepared.js'
import { countExcess, firstKeptId, floorWithinBytes, PRUNE_BATCH as BATCH, profilesBytesTarget, Retention, rowsOver, STATISTICS_STAMP_MAX_AGE_MS, statisticsShare } from '../retention-policy.js'
import { BoundReporter } from '../store-bound.js'

/** Token claims deleted per sweep step: a short transaction. */
const TOKEN_SWEEP = 5_000
/** Deleted rows are vacuumed at least this often while pruning goes on (and once it stops). */
const VACUUM_EVERY_MS = 250
/** How often the statistics' live rows are counted while they are over 90% of their share on disk and not being coarsened (a count(*) of the table). */
const STATISTICS_MEASURE_MS = 10_000
/**
 * The newest profiles' panel bytes on average (their token index: profile_data has no id index),
 * as stored before compression: what the profiles pruning for size keeps take now.
 */
const NEWEST_PANEL_BYTES_SQL = `SELECT coalesce(avg(octet_length(d.panels)), 0)::float8 AS bytes
  FROM (SELECT id, token FROM profiles ORDER BY id DESC LIMIT ${BATCH}) p JOIN profile_data d ON d.token = p.token AND d.id = p.id`
/**
 * The share of the bytes left under the target, as last measured, that the writer's batches may
 * take before makeRoom measures the store again (a quarter: instances sharing the store each take
 * theirs from the same figure, and the statistics grow meanwhile). Measured before every batch, the
 * store's size was most of the database server's CPU at a low sampling rate (issue 38).
 */
const ROOM_SHARE = 0.25
/**
 * How long a VACUUM FULL waits for its table's lock before it leaves the table for a later turn:
 * this much longer than the server's deadlock_timeout. An autovacuum of the table is cancelled for
 * a waiter only at that waiter's deadlock check (after deadlock_timeout, 1 s by default); a lock
 * timeout of 1 s ran out at the same moment, before the cancel, so an autovacuum of the table
 * (one follows the deletes coarsening makes) made every rewrite give up while it ran.
 */
const COMPACT_LOCK_PATIENCE_MS = 1000
/**
 * Rewrites of the store (reclaim) are spaced by this many times the last one's length: they take
 * at most a tenth of the time, however often the count held changes while the store is over its
 * bound (a rewrite of 1 s, then 9 s before the next).
 */
const RECLAIM_SPACING = 9
/** PostgreSQL's lock_not_available: a lock timeout ran out. */
const LOCK_NOT_AVAILABLE = '55P03'
/** PostgreSQL's undefined_table: a partition another instance dropped. */
const UNDEFINED_TABLE = '42P01'
/** One instance prunes at a time (the others skip their step). */
const RETENTION_LOCK = 0x72657465

/** The profiles the store holds: its partitions' counts added up (migration 013: every writer and pruner keeps them in step). */
export async function storedCount (client: pg.Pool | pg.PoolClient): Promise<number> {
  return Number((await client.query<{ n: number | null }>('SELECT sum(profiles)::bigint AS n FROM profile_counts')).rows[0]?.n ?? 0)
}

/**
 * Takes the deleted profiles `ids` off their partitions' counts, in the caller's transaction (the
 * writer adds those it stores in its store statement: store-profiles.ts).
 */
async function takeFromCounts (client: pg.PoolClient, partitions: Partitions, ids: number[]): Promise<void> {
  const { numbers, added } = partitions.countsOf(ids, -1)
  if (numbers.length === 0) return
  await client.query(ADD_TO_COUNTS([numbers, added]))
}

const ADD_TO_COUNTS = prepared('profiler_add_to_counts', `INSERT INTO profile_counts (partition, profiles) SELECT * FROM unnest($1::bigint[], $2::bigint[])
    ON CONFLICT (partition) DO UPDATE SET profiles = profile_counts.profiles + excluded.profiles`)

/**
 * The statistics' rows as the store holds them now, and the bytes a row took when their table was
 * last compact (migration 016: measured as `bytes` over the rows the first time it is asked for
 * since, and kept in the store for every instance sharing it). In the step's transaction, under the
 * retention lock: no other instance deletes meanwhile.
 */
async function liveStatistics (client: pg.PoolClient, bytes: number): Promise<{ rows: number, rowBytes: number }> {
  const { rows } = await client.query<{ n: number, row_bytes: number | null }>(`SELECT (SELECT count(*) FROM profile_route_stats)::bigint AS n, row_bytes
    FROM profile_statistics_coarsened`)
  const count = Number(rows[0]?.n ?? 0)
  const stored = rows[0]?.row_bytes ?? null
  if (stored !== null) return { rows: count, rowBytes: stored }
  const rowBytes = bytes / Math.max(1, count)
  await client.query('UPDATE profile_statistics_coarsened SET row_bytes = $1', [rowBytes])
  return { rows: count, rowBytes }
}

/** What a pruned profile leaves behind: its token (the route statistics keep counting its request). */
const PRUNED_COLUMNS = 'id, token'
interface PrunedRow { id: number, token: string }

/** The store's bytes and the route statistics' among them (storeAndStatisticsBytes). */
type StoreBytes = Awaited<ReturnType<typeof storeAndStatisticsBytes>>

export interface RetentionEvents {
  /** Profiles pruned (their tokens are free again), with the stored count after. */
  onDeleted: (tokens: string[], count: number) => void
  onError: (err: unknown) => void
  /** Over PROFILER_MAX_BYTES with nothing left to delete (why), or within it again (null); when that changes or the bytes moved (BoundReporter). */
  onBound: (reason: string | null) => void
}

/**
 * Keeps the PostgreSQL store within its bounds, in the writer thread, without mass deletes:
 * whole time partitions are dropped (for age, count and bytes). Only rows of the oldest
 * partition that must go before the whole partition may (the age boundary inside it, a count
 * bound smaller than a partition, or bytes over the target within the current partition: see
 * pruneForSize and makeRoom) are deleted, at most 500 per step, and then vacuumed.
 */
export class PostgresRetention extends Retention {
  /** Stored profiles, all deployments, as of the last step. */
  count = 0
  /**
   * Pruning for size in the current partition: the count held, its floor, the bytes it took once
   * reached and vacuumed, and the count held when the store's space was last rewritten (reclaim).
   */
  private budget: { count: number, floor: number, reached: boolean, settledBytes: number | undefined, reclaimedAt: number | undefined } | undefined
  /**
   * While no count is held: the bytes the writer's batches may still take before the store is
   * measured again (ROOM_SHARE of what was left under the target), and the bytes a profile took
   * then; undefined: measured before the next batch (makeRoom).
   */
  private room: { bytes: number, perProfile: number } | undefined
  /** A rewrite of the profiles' tables is due after this step's transaction (reclaim). */
  private reclaimDue = false
  /** A background step rewrites no sooner than this (RECLAIM_SPACING times the last rewrite's length after it). */
  private nextReclaimMs = 0
  /** This instance's plain VACUUM under way (the writer's makeRoom runs one beside the steps): a rewrite waits for it rather than for its lock. */
  private vacuumRunning: Promise<unknown> | undefined
  private deletedSinceVacuum = 0
  private lastVacuum = 0
  private stopped = false
  /** Partitions rows were deleted from, committed: the next VACUUM's. */
  private readonly vacuumPartitions = new Set<number>()
  /**
   * Partitions the transaction holding the retention lock deleted rows from, until it commits
   * (lockedForDeletes): a VACUUM that ran before the commit left their space unusable, and the
   * batch that followed grew the tables (issue 38: 9.3 MB at an 8 MiB bound in a loaded run).
   */
  private uncommitted = new Set<number>()
  /**
   * The statistics: their bytes as last measured; when their rows were last counted; whether this
   * instance is coarsening them, deleted rows since the last VACUUM FULL, and has one due (after the
   * step's transaction). Their row count and the bytes a row takes are the store's (liveStatistics).
   */
  private readonly statistics = { bytes: 0, checkedAt: -Infinity, coarsening: false, deleted: false, compact: false }
  private readonly bound = new BoundReporter(reason => { this.events.onBound(reason) })

  constructor (
    private readonly pool: pg.Pool,
    private readonly partitions: Partitions,
    private readonly limits: RetentionLimits,
    private readonly events: RetentionEvents
  ) {
    super()
  }

  protected onStepError (err: unknown): void {
    this.events.onError(err)
  }

  /**
   * One step; true when it removed something (more may be left). A background step skips its turn
   * while another instance (or this one) holds the lock; an asked-for one (`wait`) waits for it.
   */
  async step (now = Date.now(), { wait = false } = {}): Promise<boolean> {
    // The store's bytes, measured once in the step (when it gets that far) and used by all that
    // follows: nothing the step deletes comes before what reads them.
    let measured: StoreBytes | undefined
    let deleted: Set<number> | undefined
    const removed = await inTransaction(this.pool, async client => {
      deleted = await this.lockedForDeletes(client, wait)
      if (deleted === undefined) return false
      // The statistics' own bound first (a primary-key range probe per span): their rows, not profiles.
      const expiredStats = await deleteExpiredRollups(client, now, this.limits.statsMaxAgeMs, BATCH)
      if (expiredStats > 0) {
        this.deletedSinceVacuum += expiredStats
        return true
      }
      // The statistics stamps of stopped sources (a handful of rows, read whole).
      const staleStamps = await client.query('DELETE FROM profile_statistics_stamps WHERE written_ms < $1', [now - STATISTICS_STAMP_MAX_AGE_MS])
      if ((staleStamps.rowCount ?? 0) > 0) return true
      measured = await this.measure(client)
      // Their share of the bytes: coarsened, never paid for with profiles.
      if (await this.coarsen(client, now, measured.statistics)) return true
      const partitions = await this.partitions.list(client)
      const oldest = partitions[0]
      if (oldest === undefined) return await this.sweepTokens(client)
      const { limits } = this
      const expiredBefore = firstKeptId(limits, now)
      if (oldest.highId <= expiredBefore) return await this.dropPartition(client, oldest)
      const oldestId = (await client.query<{ id: number | null }>('SELECT min(id) AS id FROM profiles')).rows[0]?.id ?? null
      if (oldestId !== null && oldestId < expiredBefore) return await this.deleteOldest(client, expiredBefore - 1, BATCH)

      const currentLow = this.partitions.of(this.partitions.numberOf(now * ID_SLOTS_PER_MS)).lowId
      this.count = await storedCount(client)
      const excess = countExcess(limits, this.count)
      if (excess > 0) {
        // A whole past partition when it holds no more than the excess; else the oldest rows.
        if (oldest.highId <= currentLow && await this.countOf(client, oldest) <= excess) return await this.dropPartition(client, oldest)
        return await this.deleteOldest(client, Number.MAX_SAFE_INTEGER, Math.min(excess, BATCH))
      }
      const { profiles, target } = this.profilesBytes(measured)
      this.measuredRoom(profiles, target)
      if (profiles <= target) return await this.sweepTokens(client)
      // A past partition goes whole when at least half of the profiles stay; else the oldest rows go.
      if (oldest.highId <= currentLow && await this.countOf(client, oldest) <= this.count / 2) return await this.dropPartition(client, oldest)
      return await this.pruneForSize(client, profiles, target)
    })
    this.committed(deleted)
    // The rows coarsening deleted are given back to the file system: the table is rewritten (an
    // exclusive lock for as long as it takes to copy the rows left: within their share). Tried
    // again at a later step when another instance holds the retention lock or a reader the table.
    if (this.statistics.compact && !this.stopped && await this.compactStatistics(wait)) {
      this.statistics.compact = false
      // Measured again at the next step (the bytes a row takes now that the table is compact).
      this.statistics.checkedAt = -Infinity
      return true
    }
    // Tried again at the next step when another instance (or this one's background step) held the lock.
    // A background step waits for its turn (nextReclaimMs); one asked for (`wait`: a prune) does not.
    if (this.reclaimDue && !this.stopped && (wait || Date.now() >= this.nextReclaimMs) && await this.reclaim(wait)) {
      this.reclaimDue = false
      return true
    }
    if ((this.deletedSinceVacuum > 0 || this.vacuumPartitions.size > 0) && (!removed || Date.now() - this.lastVacuum >= VACUUM_EVERY_MS)) {
      await this.vacuum()
      measured = undefined // a VACUUM may have given pages back
    }
    if (!removed && !this.stopped) await this.checkBound(measured)
    return removed
  }

  /** The store's bytes and the statistics' among them, now (one statement: storeAndStatisticsBytes). */
  private async measure (client: pg.Pool | pg.PoolClient): Promise<StoreBytes> {
    const bytes = await storeAndStatisticsBytes(client)
    this.statistics.bytes = bytes.statistics
    return bytes
  }

  /** The bytes of everything but the statistics (the profiles and what goes with them), and their target (profilesBytesTarget). */
  private profilesBytes (bytes: StoreBytes): { profiles: number, target: number } {
    return { profiles: bytes.store - bytes.statistics, target: profilesBytesTarget(this.limits, bytes.statistics) }
  }

  /** profilesBytes, measured now. */
  private async profilesBytesNow (client: pg.Pool | pg.PoolClient): Promise<{ profiles: number, target: number }> {
    return this.profilesBytes(await this.measure(client))
  }

  /** The room the writer's batches have from a measurement of the profiles' bytes (none while a count is held). */
  private measuredRoom (profiles: number, target: number): void {
    this.room = this.budget === undefined ? { bytes: Math.max(0, target - profiles) * ROOM_SHARE, perProfile: profiles / Math.max(1, this.count) } : undefined
  }

  /**
   * Over 90% of their share, the statistics lose their oldest whole periods (minute rows first), a
   * batch per step, until their live rows (counted, at the bytes a row took when the table was last
   * compact) are down to 80%; then, when the table itself is still over the share, it is compacted
   * (VACUUM FULL, after this step's transaction). Looked at every 10 s while there is nothing to do.
   * The rows are counted at every step, in the store: instances sharing it coarsen in turn, and a
   * count taken once and lowered by this instance's own deletes missed the others' (two instances
   * deleted six times what one does: statistics-shared-store).
   */
  private async coarsen (client: pg.PoolClient, now: number, bytes: number): Promise<boolean> {
    const { statistics } = this
    const share = statisticsShare(this.limits)
    statistics.bytes = bytes
    if (statistics.bytes <= share.start) {
      statistics.coarsening = false
      statistics.deleted = false
      return false
    }
    // Over it on disk: the live rows are counted (a read of the whole table), every 10 s unless coarsening goes on.
    if (!statistics.coarsening && !statistics.deleted && Date.now() - statistics.checkedAt < STATISTICS_MEASURE_MS) return false
    statistics.checkedAt = Date.now()
    const { rows, rowBytes } = await liveStatistics(client, statistics.bytes)
    const live = rows * rowBytes
    if (live > (statistics.coarsening ? share.target : share.start)) {
      const deleted = await coarsenStatistics(client, now, rowsOver(live - share.target, rowBytes))
      statistics.coarsening = deleted > 0
      if (deleted > 0) {
        statistics.deleted = true
        return true
      }
    }
    // Coarsened enough (or nothing older than the current hour left): the space goes back once
    // (VACUUM FULL), or, within the share on disk, is made reusable by the next plain VACUUM.
    statistics.coarsening = false
    // (Still due when a VACUUM FULL did not run: compactStatistics gave up for a lock.)
    statistics.compact ||= statistics.deleted && statistics.bytes > share.bound
    if (statistics.deleted && !statistics.compact) this.deletedSinceVacuum++
    statistics.deleted = false
    return statistics.compact
  }

  /** Tells whether the store is over its bound with nothing left that retention may delete, and why (BoundReporter: when that changes, or its bytes moved). */
  private async checkBound (measured: StoreBytes | undefined): Promise<void> {
    const { store: used, statistics } = measured ?? await this.measure(this.pool)
    this.bound.check({ used, statistics, profiles: this.count, limits: this.limits })
  }

  /**
   * Before the writer inserts `incoming` profiles: when they would take the bytes over the target,
   * the count that fits is held from then on. The oldest rows that exceed it are deleted (own
   * transaction, under the pruning lock) and vacuumed before the batch is written, so that the
   * batch reuses their space instead of growing the tables. Far under the target, the store is not
   * measured before every batch: the batches take their bytes out of the room the last measurement
   * left (ROOM_SHARE of the bytes under the target), and it is measured again once that is used up.
   */
  async makeRoom (incoming: number, incomingPanelBytes = 0): Promise<void> {
    if (incoming === 0) return
    // The bytes per profile are told apart from the empty store's only once it holds a batch's worth.
    if (this.budget === undefined && this.count >= incoming) {
      const incomingPerProfile = incomingPanelBytes / incoming
      const room = this.room
      const taken = room === undefined ? Infinity : incoming * Math.max(room.perProfile, incomingPerProfile)
      if (room !== undefined && taken <= room.bytes) {
        room.bytes -= taken
        return
      }
      const { profiles: bytes, target } = await this.profilesBytesNow(this.pool)
      const perProfile = Math.max(bytes / this.count, incomingPerProfile)
      if (bytes + incoming * perProfile <= target) {
        this.measuredRoom(bytes + incoming * perProfile, target)
        return
      }
      this.holdAt(Math.floor(target / perProfile))
    }
    const budget = this.budget
    if (budget === undefined) return
    const { count, floor } = await this.held(this.pool, profilesBytesTarget(this.limits, this.statistics.bytes), incomingPanelBytes / incoming)
    // Never below the floor: a batch larger than half of what fits then grows the tables once.
    const excess = Math.min(this.count + incoming - count, this.count - floor)
    if (excess <= 0) return
    budget.reached = true
    let deleted: Set<number> | undefined
    const tokens = await inTransaction(this.pool, async client => {
      deleted = await this.lockedForDeletes(client, true)
      return await this.deleteRows(client, Number.MAX_SAFE_INTEGER, excess, { sweep: true })
    })
    this.committed(deleted)
    this.report(tokens)
    // Waits for every VACUUM of this instance begun before it too (vacuum): the batch reuses the space.
    await this.vacuum()
  }

  /**
   * Takes the retention lock for the caller's transaction (waits for it, or gives up: undefined);
   * the partitions it deletes rows from are gathered apart until it commits (committed).
   */
  private async lockedForDeletes (client: pg.PoolClient, wait: boolean): Promise<Set<number> | undefined> {
    if (wait) {
      await client.query('SELECT pg_advisory_xact_lock($1)', [RETENTION_LOCK])
    } else {
      const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [RETENTION_LOCK])
      if (locked.rows[0]?.ok !== true) return undefined
    }
    // Only the lock's holder deletes: the set is this transaction's until the next holder's.
    this.uncommitted = new Set()
    return this.uncommitted
  }

  /** The partitions a committed transaction deleted rows from, handed to the next VACUUM. */
  private committed (deleted: Set<number> | undefined): void {
    for (const n of deleted ?? []) this.vacuumPartitions.add(n)
  }

  /**
   * The most profiles the writer inserts at once: an eighth of the count held, if any. Room is made
   * in a transaction of its own before each part (then vacuumed, for the part to reuse the space),
   * so a reader between the two sees the store a part short: a quarter let it dip to 738 profiles
   * where 1,200 fit (postgres-bytes).
   */
  partSize (incomingProfileBytes = 0): number {
    if (this.budget === undefined) return Infinity
    const target = profilesBytesTarget(this.limits, this.statistics.bytes)
    const count = Math.min(this.budget.count, incomingProfileBytes > 0 ? target / incomingProfileBytes : Infinity)
    return Math.max(1, Math.floor(count / 8))
  }

  /**
   * The count held and its floor, bounded in bytes at the size the newest profiles (or the incoming
   * ones, when larger) take now: no more profiles than fit the target at that size, and a floor of
   * at most half of them (floorWithinBytes). Held as counts alone, set while requests were small,
   * 2,361 profiles of 60 KB took 170 MB at an 8 MiB bound.
   */
  private async held (client: pg.Pool | pg.PoolClient, target: number, incomingProfileBytes = 0): Promise<{ count: number, floor: number }> {
    const budget = this.budget as NonNullable<typeof this.budget>
    const newest = Number((await client.query<{ bytes: number }>(NEWEST_PANEL_BYTES_SQL)).rows[0]?.bytes ?? 0)
    const perProfile = Math.max(newest, incomingProfileBytes)
    if (perProfile <= 0) return budget
    return { count: Math.min(budget.count, Math.max(1, Math.floor(target / perProfile))), floor: floorWithinBytes(budget.floor, target, perProfile) }
  }

  private holdAt (fits: number): void {
    const count = Math.max(1, fits)
    // The floor, three quarters of the first count held (itself 90% of what fits): the store never
    // falls below half of what fits, whatever else holds the bytes (half dipped under load: issue 20).
    this.budget = { count, floor: Math.ceil(count * 3 / 4), reached: false, settledBytes: undefined, reclaimedAt: undefined }
    this.room = undefined
  }

  /**
   * Over the byte target with no partition to drop: the oldest rows go, down to the profiles that
   * fit, and VACUUM makes their space reusable: the tables then stop growing (they do not shrink).
   * The count is held there (also by the writer: makeRoom). Reached, vacuumed and still over the
   * bound, the tables are rewritten (reclaim); still over it after that, the count is lowered in
   * proportion (lower), never below three quarters of the first count held (bounded in bytes:
   * held), so that bytes held by something else never empty the store. Bytes that grow within the
   * bound lower nothing (a 2% growth did, and TOAST's uneven reuse made the count fall step by step).
   * A dropped partition ends the hold.
   */
  private async pruneForSize (client: pg.PoolClient, bytes: number, target: number): Promise<boolean> {
    let budget = this.budget
    if (budget === undefined) {
      this.holdAt(Math.floor(this.count * target / bytes))
      budget = this.budget as NonNullable<typeof this.budget>
    } else if (budget.settledBytes !== undefined) {
      // At the count held, vacuumed, and over the bound: the space the rows no longer use goes first
      // (reclaim, after this transaction), once per count held; nothing is lowered until it ran.
      if (this.reclaimDue) return await this.sweepTokens(client)
      const held = await this.held(client, target)
      if (bytes + this.statistics.bytes > this.limits.maxBytes) {
        if (budget.reclaimedAt !== held.count) {
          this.reclaimDue = true
          return true
        }
        this.lower(held, bytes, target)
      }
    }
    const excess = this.count - (await this.held(client, target)).count
    if (excess <= BATCH) budget.reached = true
    if (excess <= 0) return await this.sweepTokens(client)
    // Their URLs, IPs and token claims go in the same step (the sweep's own turn may not come under load).
    return await this.deleteOldest(client, Number.MAX_SAFE_INTEGER, Math.min(excess, BATCH), { sweep: true })
  }

  /** VACUUM FULL of the statistics (rewrite); false when it did not run (tried again at a later step). An asked-for step (`wait`) waits for the retention lock. */
  private async compactStatistics (wait: boolean): Promise<boolean> {
    if ((await this.rewrite(['profile_route_stats'], wait) ?? 0) === 0) return false
    // Compact again: the bytes a row takes are measured anew (by whichever instance coarsens next).
    await this.pool.query('UPDATE profile_statistics_coarsened SET row_bytes = NULL')
    return true
  }

  /**
   * Space plain VACUUM cannot make useful again, given back: when profiles grow (1 KB, then 60 KB
   * bodies), the held count falls 25-fold, and the heap and index pages the small rows' metadata
   * held stay (a B-tree or GIN index never shrinks; the large panels go to TOAST, which cannot use
   * the heap's free pages). Measured: 11.3 MB at an 8 MiB bound, 2.5 MB of it in the indexes of
   * 120 profiles. Run once the held count is reached and vacuumed with the store still over its
   * bound, once per count held: every partition and profile side table is rewritten (VACUUM FULL,
   * which rebuilds the indexes too), one at a time under its own exclusive lock (a writer's insert
   * into it waits for the copy: at most the bound's bytes in all). Then the bytes the count takes are
   * measured again; still over the bound, the count is lowered in proportion (never below its floor).
   */
  private async reclaim (wait: boolean): Promise<boolean> {
    const partitions = await this.partitions.list(this.pool)
    const tables = [...partitions.flatMap(p => [`profiles_p${p.n}`, `profile_data_p${p.n}`]), ...PROFILE_SIDE_TABLES]
    const startMs = Date.now()
    const rewritten = await this.rewrite(tables, wait)
    this.nextReclaimMs = Date.now() + (Date.now() - startMs) * RECLAIM_SPACING
    // Tables left (a lock not had in time): the bytes are not yet what the count takes; tried again.
    if (rewritten === undefined || rewritten < tables.length) return false
    if (this.budget === undefined) return true
    const { profiles, target } = await this.profilesBytesNow(this.pool)
    const held = await this.held(this.pool, target)
    this.budget.settledBytes = profiles
    this.budget.reclaimedAt = held.count
    if (profiles + this.statistics.bytes > this.limits.maxBytes) this.lower(held, profiles, target)
    return true
  }

  /**
   * Over the bound at the count held, with nothing left to give back: the count is lowered in
   * proportion to the profiles' bytes target, never below the floor as bounded in bytes now (the
   * count floor alone, set while profiles were small, would raise the count held back).
   */
  private lower (held: { count: number, floor: number }, bytes: number, target: number): void {
    const budget = this.budget
    if (budget === undefined || held.count <= held.floor) return
    budget.count = Math.max(held.floor, Math.floor(held.count * target / bytes))
    budget.reached = false
    budget.settledBytes = undefined
  }

  /**
   * VACUUM FULL of these tables, one at a time (outside any transaction: SET LOCAL cannot bound it),
   * under the retention lock (one instance at a time) and a lock timeout: queued behind a long
   * reader, its exclusive lock request would hold up every writer of the table until that reader
   * ends. A table whose lock is not had in time, or that is gone (a partition dropped meanwhile), is
   * left for a later turn. Returns the tables rewritten, or undefined when another instance (or a
   * background step) holds the lock and `wait` is not set.
   */
  private async rewrite (tables: string[], wait: boolean): Promise<number | undefined> {
    const client = await this.pool.connect()
    let broken: Error | undefined
    try {
      if (wait) {
        await client.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK])
      } else {
        const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [RETENTION_LOCK])
        if (locked.rows[0]?.ok !== true) return undefined
      }
      try {
        await client.query(`SELECT set_config('lock_timeout', (setting::int + ${COMPACT_LOCK_PATIENCE_MS})::text, false)
          FROM pg_settings WHERE name = 'deadlock_timeout'`)
        let rewritten = 0
        for (const table of tables) {
          if (this.stopped) break
          await this.vacuumRunning?.catch(() => {})
          try {
            await client.query(`VACUUM FULL ${table}`)
            rewritten++
          } catch (err) {
            const code = (err as { code?: string }).code
            if (code !== LOCK_NOT_AVAILABLE && code !== UNDEFINED_TABLE) throw err
          }
        }
        return rewritten
      } finally {
        await client.query('RESET lock_timeout')
        await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK])
      }
    } catch (err) {
      // The connection is not handed back to the pool in an unknown state (a lock or a setting held).
      broken = err as Error
      throw err
    } finally {
      client.release(broken)
    }
  }

  /**
   * Plain VACUUM (not FULL: no exclusive lock) of the tables rows left, outside any transaction.
   * Chained after this instance's VACUUM under way, the chain joined before anything is awaited: a
   * caller (makeRoom, before a batch) resumes only once every table handed over before it is
   * vacuumed, even those a background step took first. A table another session holds (an
   * autovacuum, which the server cancels for a waiter after deadlock_timeout; another instance's
   * VACUUM) is waited for, not skipped: SKIP_LOCKED left its space unusable and the batch grew it.
   */
  private async vacuum (): Promise<void> {
    if (this.stopped) return
    const tables = [...[...this.vacuumPartitions].flatMap(n => [`profiles_p${n}`, `profile_data_p${n}`]), ...SIDE_TABLES]
    this.vacuumPartitions.clear()
    this.deletedSinceVacuum = 0
    this.lastVacuum = Date.now()
    const run = (this.vacuumRunning?.catch(() => {}) ?? Promise.resolve()).then(async () => {
      // A partition another instance dropped meanwhile is left out (VACUUM of a missing table fails).
      const existing = (await this.pool.query<{ name: string }>('SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NOT NULL',
        [tables])).rows.map(row => row.name)
      if (existing.length > 0) await this.pool.query(`VACUUM ${existing.join(', ')}`)
    })
    this.vacuumRunning = run
    try {
      await run
    } finally {
      if (this.vacuumRunning === run) this.vacuumRunning = undefined
    }
    // The first vacuum once the held count is reached: the bytes now are what that count takes.
    const budget = this.budget
    if (budget?.reached === true && budget.settledBytes === undefined) budget.settledBytes = (await this.profilesBytesNow(this.pool)).profiles
  }

  /**
   * After the writer stored `profiles`: counted, and the next step runs now when a bound may need
   * it (the count over its bound, a count held for the bytes, or no room measured yet: makeRoom
   * measures again when the room is used up, and holds a count when a batch does not fit), so that
   * a burst is pruned as it arrives. Otherwise it runs at its interval: a step after every
   * batch measured the store's size and read its counts several times a batch, most of the
   * database server's CPU at a low sampling rate (issue 38); makeRoom keeps the bytes before each batch.
   */
  written (profiles: number): void {
    this.count += profiles
    if (profiles > 0 && (countExcess(this.limits, this.count) > 0 || this.budget !== undefined || this.room === undefined)) this.wake()
  }

  /** Steps until every bound holds (waiting for the lock, not skipping); returns the steps taken. */
  async runUntilWithinBounds (now = Date.now()): Promise<number> {
    this.statistics.checkedAt = -Infinity
    let steps = 0
    while (await this.step(now, { wait: true })) steps++
    return steps
  }

  override stop (): void {
    this.stopped = true
    super.stop()
  }

  private async dropPartition (client: pg.PoolClient, partition: Partition): Promise<boolean> {
    // Its tokens are released; the route statistics keep its requests (they have their own bound).
    const { rows } = await client.query<PrunedRow>(`SELECT ${PRUNED_COLUMNS} FROM profiles_p${partition.n}`)
    await this.partitions.drop(client, partition)
    this.budget = undefined
    await this.raiseHorizon(client, partition.highId)
    // After the drop, which waited for every batch writing into the partition: their rows were
    // counted here, and went with it. A batch after it recreates the partition, and its count.
    await client.query('DELETE FROM profile_counts WHERE partition = $1', [partition.n])
    this.count = await storedCount(client)
    this.report(rows.map(row => row.token))
    return true
  }

  /** Deletes up to `limit` of the oldest profiles with id <= throughId (with their panels). */
  private async deleteOldest (client: pg.PoolClient, throughId: number, limit: number, options: { sweep?: boolean } = {}): Promise<boolean> {
    const tokens = await this.deleteRows(client, throughId, limit, options)
    this.report(tokens)
    return tokens.length > 0
  }

  /**
   * deleteOldest, without reporting the tokens (the caller does, once committed); with `sweep`, the
   * token claims, URLs, IPs and per-process panels no stored profile names go in the same transaction.
   * The partitions' counts are taken last, after the sweep: a writer locks its URLs, IPs and
   * per-process panels first and its count rows last (store-profiles.ts), and retention holding a
   * count row while it waited for a URL row a writer held was a deadlock.
   */
  private async deleteRows (client: pg.PoolClient, throughId: number, limit: number, { sweep = false } = {}): Promise<string[]> {
    const { rows } = await client.query<PrunedRow>(`
      WITH doomed AS (SELECT id FROM profiles WHERE id <= $1 ORDER BY id LIMIT $2),
      gone AS (DELETE FROM profiles p WHERE id IN (SELECT id FROM doomed) RETURNING ${PRUNED_COLUMNS}),
      panels AS (DELETE FROM profile_data d USING gone WHERE d.token = gone.token AND d.id = gone.id)
      SELECT * FROM gone`, [throughId, limit])
    if (rows.length === 0) {
      if (sweep) await this.sweepTokens(client)
      return []
    }
    const newest = Math.max(...rows.map(row => row.id))
    await this.raiseHorizon(client, newest + 1)
    this.deletedSinceVacuum += rows.length
    for (const row of rows) this.uncommitted.add(this.partitions.numberOf(row.id))
    if (sweep) await this.sweepTokens(client)
    await takeFromCounts(client, this.partitions, rows.map(row => row.id))
    this.count = await storedCount(client)
    return rows.map(row => row.token)
  }

  private report (tokens: string[]): void {
    if (tokens.length > 0) this.events.onDeleted(tokens, this.count)
  }

  /** Every id below `horizon` is pruned: token claims of such ids may be taken again. */
  private async raiseHorizon (client: pg.PoolClient, horizon: number): Promise<void> {
    await client.query('UPDATE profile_horizon SET horizon = GREATEST(horizon, $1)', [horizon])
  }

  /**
   * Token claims of pruned profiles go, a few thousand per step (a claim is also taken over when
   * its token is drawn again), and so do the URLs, IPs and per-process panels no stored profile has any more.
   */
  private async sweepTokens (client: pg.PoolClient): Promise<boolean> {
    let swept = 0
    for (const [table, key, newest] of [['profile_tokens', 'token', 'profile_id'], ['profile_urls', 'hash', 'last_id'], ['profile_ips', 'ip', 'last_id']]) {
      // The condition again on the row itself: a writer (of this instance or another) may name the
      // row again meanwhile, under its lock; this DELETE waits for it and re-reads the row's newest
      // id, where the list of keys alone would delete the row that now names a stored profile.
      const { rowCount } = await client.query(`DELETE FROM ${table} WHERE ${key} IN (
        SELECT ${key} FROM ${table} WHERE ${newest} < (SELECT horizon FROM profile_horizon) LIMIT ${TOKEN_SWEEP})
        AND ${newest} < (SELECT horizon FROM profile_horizon)`)
      swept += rowCount ?? 0
    }
    // The per-process panels (a row per configuration: a handful) by their own column, not through a
    // list of keys: a writer naming a row again raises its last_id under the row's lock, and this
    // DELETE, waiting for that lock, re-reads last_id on the new row and keeps it.
    swept += (await client.query('DELETE FROM profile_processes WHERE last_id < (SELECT horizon FROM profile_horizon)')).rowCount ?? 0
    this.deletedSinceVacuum += swept
    return swept > 0
  }

  /** The profiles a partition holds (its row of profile_counts). */
  private async countOf (client: pg.PoolClient, partition: Partition): Promise<number> {
    const { rows } = await client.query<{ profiles: number }>('SELECT profiles FROM profile_counts WHERE partition = $1', [partition.n])
    return Number(rows[0]?.profiles ?? 0)
  }
}
