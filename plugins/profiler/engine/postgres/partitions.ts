import type pg from 'pg'
import { ID_SLOTS_PER_MS } from '../../profile.js'
import { STATISTICS_TABLES } from '../retention-policy.js'

/** The partitioned tables of the PostgreSQL store; each partition of one has its twin in the other. */
const TABLES = ['profiles', 'profile_data'] as const
export const DEFAULT_PARTITION_MS = 3_600_000

export interface Partition {
  /** Partition number: start_ms / partitionMs. */
  n: number
  /** Its ids: [lowId, highId). */
  lowId: number
  highId: number
}

/**
 * The time partitions of the PostgreSQL store (writer thread): partition n holds the profiles
 * that started in [n * partitionMs, (n + 1) * partitionMs). Created ahead of the rows (several
 * instances may create the same one at once: the loser's error is ignored), dropped whole.
 */
export class Partitions {
  private readonly known = new Set<number>()

  constructor (private readonly partitionMs: number) {}

  of (n: number): Partition {
    return { n, lowId: n * this.partitionMs * ID_SLOTS_PER_MS, highId: (n + 1) * this.partitionMs * ID_SLOTS_PER_MS }
  }

  /** The ids one partition holds. */
  get idsPerPartition (): number {
    return this.partitionMs * ID_SLOTS_PER_MS
  }

  numberOf (id: number): number {
    return Math.floor(id / ID_SLOTS_PER_MS / this.partitionMs)
  }

  /** Makes sure the partitions of these ids exist, and the one after the newest (created ahead). */
  async ensure (pool: pg.Pool | pg.PoolClient, ids: number[]): Promise<void> {
    const wanted = new Set<number>()
    for (const id of ids) wanted.add(this.numberOf(id))
    const newest = Math.max(...wanted)
    if (Number.isFinite(newest)) wanted.add(newest + 1)
    for (const n of wanted) {
      if (this.known.has(n)) continue
      const { lowId, highId } = this.of(n)
      for (const table of TABLES) {
        await pool.query(`CREATE TABLE IF NOT EXISTS ${table}_p${n} PARTITION OF ${table} FOR VALUES FROM (${lowId}) TO (${highId})`).catch((err: Error & { code?: string }) => {
          // Another instance created it meanwhile (duplicate table or type).
          if (err.code !== '42P07' && err.code !== '23505' && err.code !== '42710') throw err
        })
      }
      this.known.add(n)
    }
  }

  /** The partitions that exist, oldest first (read from the catalogue: other instances create them too). */
  async list (pool: pg.Pool | pg.PoolClient): Promise<Partition[]> {
    const { rows } = await pool.query<{ name: string }>(`SELECT c.relname AS name FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'profiles'`)
    return rows
      .map(row => /^profiles_p(\d+)$/.exec(row.name)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(n => this.of(Number(n)))
      .sort((a, b) => a.n - b.n)
  }

  /** Drops one partition of each table (their rows go with them, at once). */
  async drop (client: pg.PoolClient, partition: Partition): Promise<void> {
    for (const table of TABLES) await client.query(`DROP TABLE IF EXISTS ${table}_p${partition.n}`)
    this.known.delete(partition.n)
  }

  /**
   * The partitions of `ids`, in partition order (instances adding to their rows of profile_counts at
   * once lock them in the same order), with `sign` (1: inserted, -1: deleted) for each id in it.
   */
  countsOf (ids: number[], sign: 1 | -1): { numbers: number[], added: number[] } {
    const counts = new Map<number, number>()
    for (const id of ids) {
      const n = this.numberOf(id)
      counts.set(n, (counts.get(n) ?? 0) + sign)
    }
    const numbers = [...counts.keys()].sort((a, b) => a - b)
    return { numbers, added: numbers.map(n => counts.get(n) ?? 0) }
  }

  /** Forgets what was created (after an insert found no partition for a row: someone dropped one). */
  forget (): void {
    this.known.clear()
  }
}

/** The alerts' tables (migration 015): their rows have their own age and count bounds, and their bytes count in the store's. */
const ALERT_TABLES = ['profiler_alert_states', 'profiler_alert_changes', 'profiler_alert_deliveries', 'profiler_alert_lease']

/** The tables beside the partitions whose rows go with the profiles (their search tables, token claims, counts): pruning vacuums them. */
export const PROFILE_SIDE_TABLES = ['profile_tokens', 'profile_urls', 'profile_ips', 'profile_processes', 'profile_horizon', 'profile_counts']

/** Every table beside the partitions that the profiler writes: the store's bytes count them all (the statistics' among them). */
export const SIDE_TABLES = [...PROFILE_SIDE_TABLES, ...STATISTICS_TABLES, ...ALERT_TABLES]

/** Bytes the store takes on disk: every partition of both tables with its indexes and TOAST, and every side table (the token claims, the distinct URLs and IPs, the per-process panels, the profile counts, the route statistics, the alerts), as the SQLite file holds them all. */
export async function storeBytes (pool: pg.Pool | pg.PoolClient): Promise<number> {
  return (await storeAndStatisticsBytes(pool)).store
}

/**
 * The store's bytes (storeBytes) and those of the route statistics' tables among them (with their
 * indexes and TOAST: their share of the bound counts these), in one pass over the catalogue. Each
 * table's size is a look at the files of every fork of it, its indexes and its TOAST: the costliest
 * statement retention runs (issue 38), so both figures come from one.
 */
export async function storeAndStatisticsBytes (client: pg.Pool | pg.PoolClient): Promise<{ store: number, statistics: number }> {
  const { rows } = await client.query<{ store: number | null, statistics: number | null }>(`SELECT sum(s.bytes)::bigint AS store,
      sum(s.bytes) FILTER (WHERE s.relname = ANY ($2::text[]))::bigint AS statistics
    FROM (SELECT c.relname, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
      WHERE c.relkind = 'r' AND (c.relname ~ '^(profiles|profile_data)_p[0-9]+$' OR c.relname = ANY ($1::text[]))) s`, [SIDE_TABLES, [...STATISTICS_TABLES]])
  return { store: Number(rows[0]?.store ?? 0), statistics: Number(rows[0]?.statistics ?? 0) }
}
