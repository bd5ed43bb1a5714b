import { Worker } from 'node:worker_threads'
import { threadWithoutPreloads } from '../../../../lib/thread-preloads.js'
import type { ProfileSummary, SearchFilters, StoredProfile } from '../../profile.js'
import { isStorageFault } from '../../../../lib/sqlite/faults.js'
import type { PeriodRow, RollupRange } from '../../stats/trend.js'
import type { StoreReader, StoreTarget, WindowStats } from '../contract.js'
import type { StampedTallies } from '../../stats/missing.js'
import { PROFILER_THREAD_LIMITS } from '../../thread-heap.js'
import { revivedError, type SqliteReaderAnswer, type SqliteReaderCall } from './reader-protocol.js'

const WORKER_URL = new URL('./reader-worker.js', import.meta.url)

type Pending = { resolve: (value: unknown) => void, reject: (err: Error) => void }

/**
 * The SQLite reader in its own thread (reader-worker.ts), the default: each read is a message,
 * answered with plain data. Reads queue in the worker one after the other; the request thread
 * only copies the answers (a HAR export comes back as one finished string).
 */
export class SqliteReaderThread implements StoreReader {
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private ended: Error | null = null

  private constructor (private readonly worker: Worker) {
    worker.on('message', (answer: SqliteReaderAnswer) => {
      if (answer.type !== 'done' && answer.type !== 'failed') return
      const pending = this.pending.get(answer.id)
      this.pending.delete(answer.id)
      if (answer.type === 'done') pending?.resolve(answer.value)
      else pending?.reject(revivedError(answer.error))
      if (this.pending.size === 0) worker.unref()
    })
    worker.on('exit', () => { this.end(new Error('the profile reader thread has ended')) })
    worker.on('error', err => { this.end(new Error(`the profile reader thread failed: ${err.message}`)) })
  }

  /** Starts the worker, which opens (and migrates) the file; `onMigrated` hears the versions when migrations ran. */
  static async open (target: Extract<StoreTarget, { engine: 'sqlite' }>, onMigrated: (message: string) => void): Promise<SqliteReaderThread> {
    const worker = new Worker(WORKER_URL, { workerData: target, resourceLimits: PROFILER_THREAD_LIMITS, ...threadWithoutPreloads() })
    const opened = await new Promise<SqliteReaderAnswer>((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    if (opened.type === 'open-failed') {
      await worker.terminate()
      throw revivedError(opened.error)
    }
    if (opened.type === 'opened' && opened.migrated !== null) onMigrated(opened.migrated)
    // An idle reader does not keep the process alive; while a read is open it does.
    worker.unref()
    return new SqliteReaderThread(worker)
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

  /** The file's faults (the errors cross the thread with their name and code), and the thread gone. */
  isFault (err: unknown): boolean {
    return isStorageFault(err) || (this.ended !== null && err === this.ended)
  }

  async close (): Promise<void> {
    if (this.ended !== null) return
    const exited = new Promise(resolve => this.worker.once('exit', resolve))
    await this.call({ method: 'close', args: [] }).catch(() => {})
    this.worker.ref()
    await exited
  }

  private async call (call: SqliteReaderCall): Promise<unknown> {
    if (this.ended !== null) throw this.ended
    const id = this.nextId++
    return await new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref()
      this.pending.set(id, { resolve, reject })
      this.worker.postMessage({ ...call, id })
    })
  }

  private end (error: Error): void {
    this.ended ??= error
    for (const { reject } of this.pending.values()) reject(error)
    this.pending.clear()
  }
}
