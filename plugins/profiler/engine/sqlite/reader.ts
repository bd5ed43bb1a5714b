import type { Database } from 'better-sqlite3'
import { isStorageFault } from '../../../../lib/sqlite/faults.js'
import type { ProfileSummary, SearchFilters, StoredProfile } from '../../profile.js'
import type { PeriodRow, RollupRange } from '../../stats/trend.js'
import type { StoreReader, StoreTarget, WindowStats } from '../contract.js'
import type { StampedTallies } from '../../stats/missing.js'
import { openProfileDatabase } from './open-database.js'
import { SqliteProfileSearch } from './profile-search.js'
import { searchHarOf } from '../search-har.js'

/** The SQLite engine's reader: SqliteProfileSearch on its own connection (WAL: never waits for the writer). */
export class SqliteReader implements StoreReader {
  private readonly searches: SqliteProfileSearch

  constructor (private readonly db: Database) {
    this.searches = new SqliteProfileSearch(db)
  }

  /** Opens (and migrates) the file; `onMigrated` hears the versions when migrations ran. */
  static async open (target: Extract<StoreTarget, { engine: 'sqlite' }>, onMigrated: (message: string) => void): Promise<SqliteReader> {
    const { db, migration } = openProfileDatabase(target.path, target.busyTimeoutMs)
    if (migration.applied.length > 0) onMigrated(`migrated from version ${migration.from} to ${migration.to}`)
    try {
      return new SqliteReader(db)
    } catch (err) {
      db.close()
      throw err
    }
  }

  async search (filters: SearchFilters): Promise<ProfileSummary[]> {
    return this.searches.search(filters)
  }

  async searchHar (filters: SearchFilters, version: string): Promise<string> {
    return await searchHarOf(this, filters, version)
  }

  async find (token: string): Promise<StoredProfile | undefined> {
    return this.searches.find(token)
  }

  async latest (type: string): Promise<StoredProfile | undefined> {
    return this.searches.latest(type)
  }

  async neighbours (token: string, type: string): Promise<{ previous: string | null, next: string | null }> {
    return this.searches.neighbours(token, type)
  }

  async routeStats (nowMs: number, windowMs: number, deployment?: string, stamped?: StampedTallies[]): Promise<WindowStats> {
    return this.searches.routeStats(nowMs, windowMs, deployment, stamped)
  }

  async rollupPeriods (range: RollupRange): Promise<PeriodRow[]> {
    return this.searches.rollupPeriods(range)
  }

  async storeBytes (): Promise<number> {
    return this.searches.fileBytes()
  }

  async deployments (): Promise<string[]> {
    return this.searches.deployments()
  }

  async eachToken (each: (token: string) => void): Promise<number> {
    let count = 0
    for (const token of this.searches.tokens()) {
      each(token)
      count++
    }
    return count
  }

  /** The file locked, corrupt, unreadable: the store is unavailable (never the advisors' database). */
  isFault (err: unknown): boolean {
    return isStorageFault(err)
  }

  async close (): Promise<void> {
    this.db.close()
  }
}
