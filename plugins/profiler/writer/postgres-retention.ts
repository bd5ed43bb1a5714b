import type pg from 'pg'
import { inTransaction } from '../../../lib/postgres/pool.js'
import { BackgroundLoop } from '../../../lib/background-loop.js'
import { ID_SLOTS_PER_MS } from '../profile.js'
import { storeBytes, type Partition, type Partitions } from './partitions.js'
import type { RetentionLimits } from './retention.js'
import { updateRollups } from './postgres-rollups.js'
import type { RolledProfile } from '../stats/rollup.js'

/** Rows deleted per step inside a partition, token claims per sweep step: short transactions. */
const BATCH = 500
const TOKEN_SWEEP = 5_000
/** Pruning for size stops this far under the byte bound. */
const BYTES_TARGET = 0.9
/** A partition this far in the past gets no new rows: its count is read once. */
const SEALED_AFTER_MS = 60_000
/** One instance prunes at a time (the others skip their step). */
const RETENTION_LOCK = 0x72657465

/** What a pruned profile leaves behind: its token, and what the route statistics counted. */
const PRUNED_COLUMNS = 'id, token, method, route, status_code AS "statusCode", duration_ms AS "durationMs"'
interface PrunedRow { id: number, token: string, method: string, route: string | null, statusCode: number, durationMs: number }
const rolled = (row: PrunedRow): RolledProfile => ({ ...row, startMs: Math.floor(row.id / ID_SLOTS_PER_MS) })

export interface RetentionEvents {
  /** Profiles pruned (their tokens are free again), with the stored count after. */
  onDeleted: (tokens: string[], count: number) => void
  onError: (err: unknown) => void
}

/**
 * Keeps the PostgreSQL store within its bounds, in the writer thread, without mass deletes:
 * whole time partitions are dropped (for age, count and bytes). Only rows of the oldest
 * partition that must go before the whole partition may (the age boundary inside it, or a count
 * bound smaller than a partition) are deleted, at most 500 per step.
 */
export class PostgresRetention {
  /** Stored profiles, all deployments, as of the last step. */
  count = 0
  private readonly loop = new BackgroundLoop(async () => await this.step(), err => { this.events.onError(err) })
  private readonly sealedCounts = new Map<number, number>()

  constructor (
    private readonly pool: pg.Pool,
    private readonly partitions: Partitions,
    private readonly limits: RetentionLimits,
    private readonly events: RetentionEvents
  ) {}

  /**
   * One step; true when it removed something (more may be left). A background step skips its turn
   * while another instance (or this one) holds the lock; an asked-for one (`wait`) waits for it.
   */
  async step (now = Date.now(), { wait = false } = {}): Promise<boolean> {
    return await inTransaction(this.pool, async client => {
      if (wait) {
        await client.query('SELECT pg_advisory_xact_lock($1)', [RETENTION_LOCK])
      } else {
        const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [RETENTION_LOCK])
        if (locked.rows[0]?.ok !== true) return false
      }
      const partitions = await this.partitions.list(client)
      const oldest = partitions[0]
      if (oldest === undefined) return await this.sweepTokens(client)
      const { limits } = this
      const expiredBefore = Math.floor(now - limits.maxAgeMs) * ID_SLOTS_PER_MS
      if (oldest.highId <= expiredBefore) return await this.dropPartition(client, oldest)
      const oldestId = (await client.query<{ id: number | null }>('SELECT min(id) AS id FROM profiles')).rows[0]?.id ?? null
      if (oldestId !== null && oldestId < expiredBefore) return await this.deleteOldest(client, expiredBefore - 1, BATCH)

      const currentLow = this.partitions.of(this.partitions.numberOf(now * ID_SLOTS_PER_MS)).lowId
      this.count = await this.countAll(client, partitions)
      if (this.count > limits.maxProfiles) {
        const excess = this.count - limits.maxProfiles
        // A whole past partition when it holds no more than the excess; else the oldest rows.
        if (oldest.highId <= currentLow && await this.countOf(client, oldest) <= excess) return await this.dropPartition(client, oldest)
        return await this.deleteOldest(client, Number.MAX_SAFE_INTEGER, Math.min(excess, BATCH))
      }
      if (await storeBytes(client) > limits.maxBytes * BYTES_TARGET && oldest.highId <= currentLow) {
        return await this.dropPartition(client, oldest)
      }
      return await this.sweepTokens(client)
    })
  }

  /** Steps until every bound holds (waiting for the lock, not skipping); returns the steps taken. */
  async runUntilWithinBounds (now = Date.now()): Promise<number> {
    let steps = 0
    while (await this.step(now, { wait: true })) steps++
    return steps
  }

  /** Runs in the background: right away while there is work, else every `intervalMs`. */
  start (intervalMs: number): void {
    this.loop.start(intervalMs)
  }

  stop (): void {
    this.loop.stop()
  }

  private async dropPartition (client: pg.PoolClient, partition: Partition): Promise<boolean> {
    const { rows } = await client.query<PrunedRow>(`SELECT ${PRUNED_COLUMNS} FROM profiles_p${partition.n}`)
    // Its profiles leave the route statistics in the same transaction as the partition goes.
    await updateRollups(client, rows.map(rolled), -1)
    await this.partitions.drop(client, partition)
    await this.raiseHorizon(client, partition.highId)
    this.sealedCounts.delete(partition.n)
    this.count = Math.max(0, this.count - rows.length)
    this.report(rows.map(row => row.token))
    return true
  }

  /** Deletes up to `limit` of the oldest profiles with id <= throughId (with their panels). */
  private async deleteOldest (client: pg.PoolClient, throughId: number, limit: number): Promise<boolean> {
    const { rows } = await client.query<PrunedRow>(`
      WITH doomed AS (SELECT id FROM profiles WHERE id <= $1 ORDER BY id LIMIT $2),
      gone AS (DELETE FROM profiles p WHERE id IN (SELECT id FROM doomed) RETURNING ${PRUNED_COLUMNS}),
      panels AS (DELETE FROM profile_data d USING gone WHERE d.token = gone.token AND d.id = gone.id)
      SELECT * FROM gone`, [throughId, limit])
    if (rows.length === 0) return false
    await updateRollups(client, rows.map(rolled), -1)
    const newest = Math.max(...rows.map(row => row.id))
    await this.raiseHorizon(client, newest + 1)
    this.sealedCounts.delete(this.partitions.numberOf(newest))
    this.sealedCounts.delete(this.partitions.numberOf(Math.min(...rows.map(row => row.id))))
    this.count = Math.max(0, this.count - rows.length)
    this.report(rows.map(row => row.token))
    return true
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
   * its token is drawn again), and so do the URLs and IPs no stored profile has any more.
   */
  private async sweepTokens (client: pg.PoolClient): Promise<boolean> {
    let swept = 0
    for (const [table, key, newest] of [['profile_tokens', 'token', 'profile_id'], ['profile_urls', 'hash', 'last_id'], ['profile_ips', 'ip', 'last_id']]) {
      const { rowCount } = await client.query(`DELETE FROM ${table} WHERE ${key} IN (
        SELECT ${key} FROM ${table} WHERE ${newest} < (SELECT horizon FROM profile_horizon) LIMIT ${TOKEN_SWEEP})`)
      swept += rowCount ?? 0
    }
    return swept > 0
  }

  /** Profiles in every partition: a sealed partition is counted once, the recent ones each time. */
  private async countAll (client: pg.PoolClient, partitions: Partition[]): Promise<number> {
    let total = 0
    for (const partition of partitions) total += await this.countOf(client, partition)
    return total
  }

  private async countOf (client: pg.PoolClient, partition: Partition): Promise<number> {
    const cached = this.sealedCounts.get(partition.n)
    if (cached !== undefined) return cached
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM profiles_p${partition.n}`)
    const count = Number(rows[0]?.n ?? 0)
    if (partition.highId <= (Date.now() - SEALED_AFTER_MS) * ID_SLOTS_PER_MS) this.sealedCounts.set(partition.n, count)
    return count
  }
}
