import type { QueuedProfile } from '../profile.js'
import type { StoreHealth } from './health.js'
import type { WriterClient } from './writer-client.js'

export interface StoreOptions {
  /** Profiles queued or being written at most; past that new ones are dropped and counted. */
  maxQueue: number
  /** Hand a batch to the writer as soon as this many are queued. */
  batchSize: number
  /** Otherwise hand it over this long after the first queued profile. */
  flushDelayMs: number
  /** While the store cannot be written, the queue is retried this often (and the read connection reopened). */
  retryDelayMs: number
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { maxQueue: 10_000, batchSize: 500, flushDelayMs: 50, retryDelayMs: 1000 }

/** What the queue tells its owner. */
export interface QueueEvents {
  /** Profiles that will not be stored (their tokens are free again); `reason` for the log. */
  onDrop: (tokens: string[], reason: string) => void
  /** A batch was stored; `count` is the number of stored profiles the writer reports. */
  onWritten: (count: number) => Promise<void>
}

/**
 * The bounded queue between the request thread and the writer thread, and its batch scheduler:
 * profiles are handed over in batches (at `batchSize`, or `flushDelayMs` after the first). A
 * batch the writer cannot store (a storage fault) goes back to the front of the queue and is
 * retried every `retryDelayMs`; only what overflows the queue meanwhile is lost, and counted.
 */
export class ProfileQueue {
  private queue: QueuedProfile[] = []
  private inFlight = 0
  private readonly batches = new Set<Promise<unknown>>()
  private timer: NodeJS.Timeout | null = null

  constructor (
    private readonly writer: WriterClient,
    private readonly health: StoreHealth,
    private readonly options: StoreOptions,
    private readonly events: QueueEvents
  ) {}

  /** Profiles waiting or being written. */
  get size (): number {
    return this.queue.length + this.inFlight
  }

  /** Queues a profile; never writes, never waits, never throws. Returns false when it was dropped. */
  push (profile: QueuedProfile): boolean {
    if (this.size >= this.options.maxQueue) {
      this.events.onDrop([profile.token], this.health.failing ? 'the store is failing and the queue is full' : 'the writer is behind and the queue is full')
      return false
    }
    this.queue.push(profile)
    // While the store is failing, only the retry timer hands profiles over.
    if (this.health.failing) {
      this.schedule(this.options.retryDelayMs)
      return true
    }
    if (this.queue.length >= this.options.batchSize) this.schedule(0)
    else this.schedule(this.options.flushDelayMs)
    return true
  }

  /** Hands every queued profile to the writer and resolves once the writer has answered for all of them. */
  async flush (): Promise<void> {
    this.handOver()
    await Promise.all([...this.batches])
  }

  /** Stops the timer and takes out what is left (after a last flush). */
  drain (): QueuedProfile[] {
    this.cancelTimer()
    const left = this.queue
    this.queue = []
    return left
  }

  private handOver (): void {
    this.cancelTimer()
    if (this.queue.length === 0) return
    const batch = this.queue
    this.queue = []
    this.inFlight += batch.length
    const written = this.writer.request({ type: 'write', batch }).then(async answer => {
      this.inFlight -= batch.length
      this.batches.delete(written)
      if (answer.error !== undefined && answer.fault === true) {
        // Kept, oldest first, and tried again later: a locked or full store loses nothing it can hold.
        this.queue = batch.concat(this.queue)
        this.health.fail(answer.error)
        this.schedule(this.options.retryDelayMs)
        return
      }
      if (answer.error !== undefined) {
        // Not the store failing: the same batch would fail again. Dropped, counted, logged.
        this.events.onDrop(batch.map(profile => profile.token), `a batch of ${batch.length} profile(s) could not be written: ${answer.error}`)
        return
      }
      await this.events.onWritten(answer.count)
      this.health.recover()
      for (const { token, reason } of answer.unshaped ?? []) this.events.onDrop([token], reason)
      for (const token of answer.rejected ?? []) {
        this.events.onDrop([token], `profile ${token} could not be stored: its token or every id of its millisecond is taken`)
      }
    })
    this.batches.add(written)
  }

  private schedule (delayMs: number): void {
    if (this.timer !== null && delayMs > 0) return
    this.cancelTimer()
    this.timer = setTimeout(() => this.handOver(), delayMs)
    this.timer.unref()
  }

  private cancelTimer (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
