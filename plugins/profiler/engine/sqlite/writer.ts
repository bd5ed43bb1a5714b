import type { Database, Transaction } from 'better-sqlite3'
import { isSqliteDataError, isStorageFault } from '../../../../lib/sqlite/faults.js'
import type { ProfileRecord } from '../../profile.js'
import type { StatisticsOnly } from '../../stats/rollup.js'
import type { MissingWindow } from '../../stats/missing.js'
import { SqliteProfileWriter } from './profile-writer.js'
import { SqliteRetention } from './retention.js'
import type { RetentionLimits, StatisticsStamp, StoreTarget, StoreWriter, WriteResult, WriterEvents } from '../contract.js'
import { openProfileDatabase } from './open-database.js'

/** The SQLite engine's writer (writer thread): SqliteProfileWriter and its SqliteRetention on one connection. */
export class SqliteWriter implements StoreWriter {
  /**
   * A batch and the bounds' deletions in one transaction: room made for its bytes first (the batch
   * reuses the freed pages), the count bound after. The file never holds more than
   * PROFILER_MAX_PROFILES, not even for a batch's moment (readers and other processes see either).
   */
  private readonly writeWithinCount: Transaction<(batch: ProfileRecord[], statisticsOnly: StatisticsOnly[], stamp: StatisticsStamp | undefined, missing: MissingWindow[]) => WriteResult>

  private constructor (db: Database, private readonly writer: SqliteProfileWriter, private readonly retention: SqliteRetention, private readonly closeDb: () => void) {
    this.writeWithinCount = db.transaction((batch: ProfileRecord[], statisticsOnly: StatisticsOnly[], stamp: StatisticsStamp | undefined, missing: MissingWindow[]) => {
      this.retention.makeRoom(batch.reduce((bytes, profile) => bytes + profile.panels.length + profile.url.length, 0))
      const result = this.writer.write(batch, statisticsOnly, stamp, missing)
      // On what the file holds: several processes may share it.
      this.retention.enforceCount()
      return result
    })
  }

  static open (target: Extract<StoreTarget, { engine: 'sqlite' }>, deployment: string, limits: RetentionLimits, intervalMs: number, events: Pick<WriterEvents, 'onDeleted' | 'onError' | 'onBound'>): SqliteWriter {
    const { db } = openProfileDatabase(target.path, target.busyTimeoutMs)
    // 16 MiB of page cache for the writer (SQLite's default is 2 MiB): the indexes' hot pages of a
    // large store stay in memory between batches.
    db.pragma(`cache_size = ${-16 * 1024}`)
    const writer: SqliteProfileWriter = new SqliteProfileWriter(db, tokens => { events.onDeleted(tokens, writer.count) }, deployment)
    const retention = new SqliteRetention(writer, limits, err => { events.onError(`pruning failed: ${(err as Error).message}`) }, events.onBound)
    retention.start(intervalMs)
    return new SqliteWriter(db, writer, retention, () => { retention.stop(); db.close() })
  }

  get count (): number {
    return this.writer.count
  }

  async write (batch: ProfileRecord[], statisticsOnly: StatisticsOnly[] = [], stamp?: StatisticsStamp, missing: MissingWindow[] = []): Promise<WriteResult> {
    let result: WriteResult
    try {
      // IMMEDIATE: the write lock first, waiting up to the busy timeout. A deferred transaction that
      // reads first (makeRoom's sizes) and then writes gets SQLITE_BUSY at once while another
      // connection writes, whatever the busy timeout (SQLite's rule against deadlocks).
      result = this.writeWithinCount.immediate(batch, statisticsOnly, stamp, missing)
    } catch (err) {
      this.writer.forgetUncommitted()
      throw err
    }
    // One retention step per batch as well (at most 500 deletions): under a burst the background
    // loop alone let the file reach 91 MB at a 5 MiB bound before it caught up.
    this.retention.step()
    return result
  }

  async prune (now: number): Promise<void> {
    this.retention.runUntilWithinBounds(now)
  }

  isFault (err: unknown): boolean {
    return isStorageFault(err)
  }

  isContentError (err: unknown): boolean {
    return isSqliteDataError(err)
  }

  async close (): Promise<void> {
    this.closeDb()
  }
}
