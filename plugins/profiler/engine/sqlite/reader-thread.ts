import type { ProfileSummary, SearchFilters, StoredProfile } from '../../profile.js'
import { isStorageFault } from '../../../../lib/sqlite/faults.js'
import type { PeriodRow, RollupRange } from '../../stats/trend.js'
import type { StoreReader, StoreTarget, WindowStats } from '../contract.js'
import type { StampedTallies } from '../../stats/missing.js'
import { ProfilerThread } from '../../profiler-thread.js'
import { revivedError, type SqliteReaderAnswer, type SqliteReaderCall } from './reader-protocol.js'

/**
 * The SQLite reader in its own thread (reader-worker.ts), the default: each read is a message,
 * answered with plain data. Reads queue in the worker one after the other; the request thread
 * only copies the answers (a HAR export comes back as one finished string). A thread that dies
 * is started again (profiler-thread.ts), opening the file again; its reads fail meanwhile with a
 * ThreadGone naming the end, which the connection answers with a 503.
 */
export class SqliteReaderThread implements StoreReader {
  private constructor (private readonly thread: ProfilerThread<SqliteReaderCall, SqliteReaderAnswer>) {}

  /** Starts the worker, which opens (and migrates) the file; `onMigrated` hears the versions when migrations ran. */
  static async open (target: Extract<StoreTarget, { engine: 'sqlite' }>, onMigrated: (message: string) => void): Promise<SqliteReaderThread> {
    const thread = new ProfilerThread<SqliteReaderCall, SqliteReaderAnswer>({
      name: 'profile reader thread',
      url: new URL('./reader-worker.js', import.meta.url),
      workerData: target,
      answerTo: answer => answer.type === 'done' || answer.type === 'failed' ? answer.id : null,
      works: answer => answer.type === 'done',
      // Each start opens the file: the first one's failure is open()'s, a later one's ends that thread.
      handshake: answer => {
        if (answer.type === 'open-failed') return revivedError(answer.error)
        if (answer.type === 'opened' && answer.migrated !== null) onMigrated(answer.migrated)
        return null
      }
    })
    await thread.started
    return new SqliteReaderThread(thread)
  }

  async search (filters: SearchFilters): Promise<ProfileSummary[]> {
    return await this.call({ method: 'search', args: [filters] }) as ProfileSummary[]
  }

  /** The HAR document of a search's profiles, built in the worker (megabytes of JSON). */
  async searchHar (filters: SearchFilters, version: string): Promise<string> {
    return await this.call({ method: 'searchHar', args: [filters, version] }) as string
  }

  async find (token: string): Promise<StoredProfile | undefined> {
    return await this.call({ method: 'find', args: [token] }) as StoredProfile | undefined
  }

  async latest (type: string): Promise<StoredProfile | undefined> {
    return await this.call({ method: 'latest', args: [type] }) as StoredProfile | undefined
  }

  async neighbours (token: string, type: string): Promise<{ previous: string | null, next: string | null }> {
    return await this.call({ method: 'neighbours', args: [token, type] }) as { previous: string | null, next: string | null }
  }

  async routeStats (nowMs: number, windowMs: number, deployment?: string, stamped?: StampedTallies[]): Promise<WindowStats> {
    return await this.call({ method: 'routeStats', args: [nowMs, windowMs, deployment, stamped] }) as WindowStats
  }

  async rollupPeriods (range: RollupRange): Promise<PeriodRow[]> {
    return await this.call({ method: 'rollupPeriods', args: [range] }) as PeriodRow[]
  }

  async storeBytes (): Promise<number> {
    return await this.call({ method: 'storeBytes', args: [] }) as number
  }

  async deployments (): Promise<string[]> {
    return await this.call({ method: 'deployments', args: [] }) as string[]
  }

  async eachToken (each: (token: string) => void): Promise<number> {
    const tokens = await this.call({ method: 'tokens', args: [] }) as string[]
    for (const token of tokens) each(token)
    return tokens.length
  }

  /** The file's faults (the errors cross the thread with their name and code); not the thread's end (ThreadGone), which it survives. */
  isFault (err: unknown): boolean {
    return isStorageFault(err)
  }

  async close (): Promise<void> {
    await this.thread.close({ method: 'close', args: [] })
  }

  private async call (call: SqliteReaderCall): Promise<unknown> {
    const answer = await this.thread.call(call)
    if (answer.type === 'failed') throw revivedError(answer.error)
    return answer.type === 'done' ? answer.value : undefined
  }
}
