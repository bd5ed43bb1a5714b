import type pg from 'pg'
import { isPostgresDataError, isPostgresFault } from '../../../../lib/postgres/faults.js'
import { migratePostgres } from '../../../../lib/postgres/migrate.js'
import { createPool, inTransaction } from '../../../../lib/postgres/pool.js'
import { noNul } from '../../../../lib/postgres/text.js'
import { profilerPostgresMigrationsDir } from '../../../../paths.js'
import type { ProfileRecord } from '../../profile.js'
import type { RetentionLimits, StatisticsStamp, StoreTarget, StoreWriter, WriteResult, WriterEvents } from '../contract.js'
import { DEFAULT_PARTITION_MS, Partitions } from './partitions.js'
import { PostgresRetention, storedCount } from './retention.js'
import { addToRollups } from './rollups.js'
import { prepared } from './prepared.js'
import { storeProfiles } from './store-profiles.js'
import { countedRequest, countedStatisticsOnly, type StatisticsOnly } from '../../stats/rollup.js'
import type { MissingWindow } from '../../stats/missing.js'

/** The migrations' bookkeeping table of the profile store (the advisors may share the database). */
export const PROFILER_MIGRATIONS_TABLE = 'profiler_schema_migrations'

/** "no partition of relation found for row": a partition this writer created was dropped meanwhile. */
const NO_PARTITION = '23514'

/**
 * Of the profiles whose token is held already, those stored by this very profile (same token, id
 * and deployment): a batch retried after its commit, its answer lost (the writer thread died).
 * Neither written again nor rejected.
 */
async function storedBefore (client: pg.PoolClient, unclaimed: ProfileRecord[], deployment: string): Promise<Set<string>> {
  if (unclaimed.length === 0) return new Set()
  const { rows } = await client.query<{ token: string }>(STORED_BEFORE([unclaimed.map(p => p.token), unclaimed.map(p => p.id), deployment]))
  return new Set(rows.map(row => row.token))
}

const STORED_BEFORE = prepared('profiler_stored_before', `SELECT t.token FROM unnest($1::text[], $2::bigint[]) AS u (token, id)
    JOIN profile_tokens t ON t.token = u.token AND t.profile_id = u.id
    JOIN profiles p ON p.id = u.id AND p.token = u.token WHERE p.deployment = $3`)

/**
 * Records `stamp` (in the caller's transaction) and deletes its source's stamps below its lowest
 * outstanding batch; true when it was not recorded before (or there is none): count the batch's
 * statistics-only requests (contract.ts: StatisticsStamp). One source has one writer: no race.
 */
async function firstWithStamp (client: pg.PoolClient, stamp: StatisticsStamp | undefined): Promise<boolean> {
  if (stamp === undefined) return true
  const recorded = await client.query(RECORD_STAMP([stamp.source, stamp.seq, Date.now(), stamp.lowestOutstanding]))
  return recorded.rowCount === 1
}

/**
 * One statement: the stamps it deletes are below the lowest outstanding batch, the one it records is
 * not (its own batch is outstanding), so the two parts never touch the same row. Its row count is the insert's.
 */
const RECORD_STAMP = prepared('profiler_record_stamp', `WITH forgotten AS (DELETE FROM profile_statistics_stamps WHERE source = $1 AND seq < $4)
  INSERT INTO profile_statistics_stamps (source, seq, written_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`)

/**
 * Adds the tallies of requests the statistics could not count (migration 011; stats/missing.ts) to
 * their rows, in the caller's transaction; in key order, so that instances adding to the same rows at once lock them in the same order.
 */
async function addMissing (client: pg.PoolClient, deployment: string, missing: MissingWindow[]): Promise<void> {
  if (missing.length === 0) return
  const sorted = [...missing].sort((a, b) => a.spanMs - b.spanMs || a.startMs - b.startMs)
  await client.query(ADD_MISSING([deployment, sorted.map(w => w.spanMs), sorted.map(w => w.startMs), sorted.map(w => w.count)]))
}

const ADD_MISSING = prepared('profiler_add_missing', `INSERT INTO profile_statistics_missing (deployment, span_ms, start_ms, count)
    SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::bigint[])
    ON CONFLICT (deployment, span_ms, start_ms) DO UPDATE SET count = profile_statistics_missing.count + excluded.count`)

const CLAIMS_SINCE = prepared('profiler_claims_since', 'SELECT token, seq FROM profile_tokens WHERE seq > $1 ORDER BY seq LIMIT 10000')

/** The batch's tokens claimed (a claim whose profile was pruned is taken again): those this batch holds now, with their claims' numbers. */
const CLAIM_TOKENS = prepared('profiler_claim_tokens', `INSERT INTO profile_tokens (token, profile_id)
    SELECT * FROM unnest($1::text[], $2::bigint[])
    ON CONFLICT (token) DO UPDATE SET profile_id = excluded.profile_id, seq = DEFAULT
      WHERE profile_tokens.profile_id < (SELECT horizon FROM profile_horizon)
    RETURNING token, seq`)

/**
 * Whether the claims `seqs` (a committed batch's) are all the claims numbered right after `lastSeq`:
 * then no other claim (another instance's) can be among them, and there is nothing to read back.
 */
function nextAfter (lastSeq: number, seqs: number[]): boolean {
  if (seqs.length === 0) return false
  const sorted = [...seqs].sort((a, b) => a - b)
  return sorted.every((seq, index) => seq === lastSeq + 1 + index)
}

/**
 * The PostgreSQL engine's writer (writer thread): each batch in one transaction of a few
 * statements whatever its size (unnest of arrays), each of fixed text prepared once per connection
 * (prepared.ts): the token claims, the statistics' stamp, the route statistics' rows locked and
 * written, and every row of the stored profiles in one (store-profiles.ts). A batch of
 * statistics-only requests is the stamp and the two route statistics statements.
 * Tokens are claimed first, in profile_tokens: a token another instance already holds rejects
 * the new profile (it is counted as dropped, never stored over the other).
 */
export class PostgresWriter implements StoreWriter {
  private constructor (
    private readonly pool: pg.Pool,
    private readonly deployment: string,
    private readonly partitions: Partitions,
    private readonly retention: PostgresRetention,
    private readonly onTaken: (tokens: string[]) => void,
    /** The newest token claim already passed on to the request thread. */
    private lastSeq: number
  ) {}

  private claimsTimer: NodeJS.Timeout | null = null

  /** Passes on the tokens claimed (by any instance) since the last look, every `intervalMs` and after each write. */
  followClaims (intervalMs: number): void {
    const tick = async (): Promise<void> => {
      await this.passOnClaims().catch(() => { /* a fault: the next write reports it */ })
      if (this.claimsTimer === null) return
      this.claimsTimer = setTimeout(tick, intervalMs)
      this.claimsTimer.unref()
    }
    this.claimsTimer = setTimeout(tick, intervalMs)
    this.claimsTimer.unref()
  }

  private async passOnClaims (): Promise<void> {
    for (;;) {
      const { rows } = await this.pool.query<{ token: string, seq: number }>(CLAIMS_SINCE([this.lastSeq]))
      const newest = rows.at(-1)
      if (newest === undefined) return
      this.lastSeq = newest.seq
      this.onTaken(rows.map(row => row.token))
      if (rows.length < 10000) return
    }
  }

  static async open (
    target: Extract<StoreTarget, { engine: 'postgres' }>,
    deployment: string,
    limits: RetentionLimits,
    intervalMs: number,
    events: WriterEvents
  ): Promise<PostgresWriter> {
    // Generic plans (as the reader's): the batch's prepared statements are planned once per connection.
    // With custom plans the server kept planning the store statement for every batch (an array of
    // one profile looks cheaper than the generic plan's estimate): 0.14 ms of a batch (issue 38).
    const pool = createPool(target.url, { max: 2, applicationName: `profiler writer (${deployment})`, statementTimeoutMs: target.statementTimeoutMs, genericPlans: true })
    try {
      await migratePostgres(pool, profilerPostgresMigrationsDir, PROFILER_MIGRATIONS_TABLE)
      await pool.query('INSERT INTO profile_deployments (name) VALUES ($1) ON CONFLICT DO NOTHING', [deployment])
      const partitions = new Partitions(target.partitionMs ?? DEFAULT_PARTITION_MS)
      const retention = new PostgresRetention(pool, partitions, limits, {
        onDeleted: events.onDeleted,
        onError: err => { events.onError(`pruning failed: ${(err as Error).message}`) },
        onBound: events.onBound
      })
      retention.count = await storedCount(pool)
      retention.start(intervalMs)
      const lastSeq = Number((await pool.query<{ seq: number | null }>('SELECT max(seq) AS seq FROM profile_tokens')).rows[0]?.seq ?? 0)
      const writer = new PostgresWriter(pool, deployment, partitions, retention, events.onTaken, lastSeq)
      writer.followClaims(intervalMs)
      return writer
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
  }

  get count (): number {
    return this.retention.count
  }

  /**
   * While the byte bound holds the count, a batch is written in parts of at most a quarter of it:
   * the room each part needs is freed (and vacuumed) before it, so the store dips by a quarter at most.
   */
  async write (batch: ProfileRecord[], statisticsOnly: StatisticsOnly[] = [], stamp?: StatisticsStamp, missing: MissingWindow[] = []): Promise<WriteResult> {
    const part = this.retention.partSize(batch.reduce((bytes, profile) => bytes + profile.panels.length, 0) / Math.max(1, batch.length))
    if (batch.length <= part) return await this.writeWhole(batch, statisticsOnly, stamp, missing)
    const result: WriteResult = { written: 0, rejected: [] }
    for (let start = 0; start < batch.length; start += part) {
      // The statistics-only requests and missing tallies (and their stamp) go with the first part.
      const each = await this.writeWhole(batch.slice(start, start + part), start === 0 ? statisticsOnly : [], start === 0 ? stamp : undefined, start === 0 ? missing : [])
      result.written += each.written
      result.rejected.push(...each.rejected)
    }
    return result
  }

  private async writeWhole (batch: ProfileRecord[], statisticsOnly: StatisticsOnly[], stamp: StatisticsStamp | undefined, missing: MissingWindow[]): Promise<WriteResult> {
    try {
      return await this.insert(batch, statisticsOnly, stamp, missing)
    } catch (err) {
      if ((err as { code?: string }).code !== NO_PARTITION) throw err
      this.partitions.forget()
      return await this.insert(batch, statisticsOnly, stamp, missing)
    }
  }

  async prune (now: number): Promise<void> {
    await this.retention.runUntilWithinBounds(now)
  }

  isFault (err: unknown): boolean {
    return isPostgresFault(err)
  }

  isContentError (err: unknown): boolean {
    return isPostgresDataError(err)
  }

  async close (): Promise<void> {
    if (this.claimsTimer !== null) clearTimeout(this.claimsTimer)
    this.claimsTimer = null
    this.retention.stop()
    await this.pool.end()
  }

  private async insert (batch: ProfileRecord[], statisticsOnly: StatisticsOnly[], stamp: StatisticsStamp | undefined, missing: MissingWindow[]): Promise<WriteResult> {
    await this.partitions.ensure(this.pool, batch.map(profile => profile.id))
    // A token twice in one batch cannot be claimed twice: the later one is rejected.
    const seen = new Set<string>()
    const rejected: string[] = []
    const candidates = batch.filter(profile => {
      if (!seen.has(profile.token)) return seen.add(profile.token)
      rejected.push(profile.token)
      return false
    })
    // Room for the batch first (for the byte bound): deleted and vacuumed, so the batch reuses the space.
    await this.retention.makeRoom(candidates.length, candidates.reduce((bytes, profile) => bytes + profile.panels.length, 0))
    const written = await inTransaction(this.pool, async client => {
      // (A batch of statistics-only requests claims nothing: no statement.)
      const claimed = candidates.length === 0 ? [] : (await client.query<{ token: string, seq: string }>(CLAIM_TOKENS([candidates.map(p => p.token), candidates.map(p => p.id)]))).rows
      const ours = new Set(claimed.map(row => row.token))
      const before = await storedBefore(client, candidates.filter(profile => !ours.has(profile.token)), this.deployment)
      const stored = candidates.filter(profile => {
        if (ours.has(profile.token)) return true
        if (!before.has(profile.token)) rejected.push(profile.token)
        return false
      })
      // Every request of the batch is counted, its profile stored or not (a token taken); only one this
      // very profile stored before (a batch retried after its commit) is counted already. The route as stored: NULs replaced.
      // Requests not kept as profiles are counted through the same function, without a profile row,
      // unless their stamp says this batch was committed before.
      const asStored = <T extends { method: string, route: string | null }>(request: T): T => ({ ...request, method: noNul(request.method), route: request.route === null ? null : noNul(request.route) })
      const countStatistics = (statisticsOnly.length > 0 || missing.length > 0) && await firstWithStamp(client, stamp)
      if (countStatistics) await addMissing(client, this.deployment, missing)
      await addToRollups(client, [
        ...(countStatistics ? statisticsOnly : []).map(request => countedStatisticsOnly(asStored(request), this.deployment)),
        ...batch.filter(profile => !before.has(profile.token)).map(profile => countedRequest(asStored(profile), this.deployment, ours.has(profile.token)))
      ])
      await storeProfiles(client, stored, this.deployment, this.partitions)
      return { count: stored.length, seqs: claimed.map(row => Number(row.seq)) }
    })
    this.retention.written(written.count)
    // No statement when the batch claimed nothing (statistics-only requests: the claims of other
    // instances are passed on by followClaims, as between batches), or when the claims made since
    // the last look are this batch's own, which the request thread drew (and holds) already (issue
    // 38: reading its own claims back was a round trip and a row a profile for the server, and the
    // tokens sent to the request thread again).
    if (candidates.length === 0) return { written: written.count, rejected }
    if (nextAfter(this.lastSeq, written.seqs)) {
      this.lastSeq += written.seqs.length
      return { written: written.count, rejected }
    }
    // The batch is stored: failing to look at the claims now must not make it be written again.
    await this.passOnClaims().catch(() => {})
    return { written: written.count, rejected }
  }
}
