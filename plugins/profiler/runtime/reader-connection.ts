import { AsyncReopening } from '../../../lib/reopening.js'
import { HttpError } from '../../../lib/http-error.js'
import type { StoreReader } from '../engine/contract.js'
import { ThreadGone } from '../profiler-thread.js'

/** The 503 of a profiler page while its store cannot be read: never the cause itself (see use()). */
function storeUnavailable (reason: string): HttpError {
  return new HttpError(503, `The profile store is unavailable: ${reason}`, { name: 'ServiceUnavailableError' })
}

/**
 * The request thread's read connection, whichever engine: opened lazily, reopened at most once
 * per retry delay while it cannot be, and while unavailable every read is a 503 naming the cause.
 * A read that fails with what its engine calls a fault (reader.isFault) closes it: the next
 * attempt to open it is a retry delay later. Each (re)open fills the token set from the stored
 * tokens. A reader whose thread ended (ThreadGone) is not closed: the thread is started again
 * (profiler-thread.ts), and its reads are a 503 naming the end until then. Its failures are its
 * own, apart from the write health: one line when it starts failing, one when a read succeeds again.
 */
export class ReaderConnection {
  private readonly reader: AsyncReopening<StoreReader>
  /** Since a failure, until a read succeeds: a reader that opens and fails again is one outage, not one per retry. */
  private failing = false

  constructor (
    open: () => Promise<StoreReader>,
    retryDelayMs: number,
    onOpened: (reader: StoreReader) => Promise<void>,
    private readonly report: {
      /** The store cannot be read (once per outage). */
      onFailure: (message: string) => void
      /** A read succeeded again after a failure. */
      onRecovered: () => void
    }
  ) {
    this.reader = new AsyncReopening(async () => {
      const reader = await open()
      try {
        await onOpened(reader)
      } catch (err) {
        await reader.close()
        throw err
      }
      return reader
    }, retryDelayMs, message => { this.failed(message) })
  }

  /** Opens it now unless it is open; resolves when the attempt is over (failures are reported, not thrown). */
  async tryOpen (): Promise<void> {
    await this.reader.tryOpen()
  }

  /** Opens it if it is closed and the last attempt is a retry delay old (after a written batch). */
  async reopenIfDue (): Promise<void> {
    await this.reader.get()
  }

  /** Runs `read` on the open reader, or throws a 503 while the store cannot be read. */
  async use<T> (read: (reader: StoreReader) => Promise<T>): Promise<T> {
    const reader = await this.reader.get()
    if (reader === null) throw storeUnavailable(this.reader.failure)
    try {
      const value = await read(reader)
      if (this.failing) {
        this.failing = false
        this.report.onRecovered()
      }
      return value
    } catch (err) {
      if (err instanceof ThreadGone && err.restarting) {
        this.failed(err.message)
        throw storeUnavailable(err.message)
      }
      if (!reader.isFault(err)) throw err
      // The cause is logged once (onFailure) and named in the message, not chained: the advisors'
      // database classifies errors by their causes, and this one is not theirs.
      await this.reader.lose(reader, err, lost => { lost.close().catch(() => {}) })
      throw storeUnavailable((err as Error).message)
    }
  }

  private failed (message: string): void {
    if (this.failing) return
    this.failing = true
    this.report.onFailure(message)
  }

  async close (): Promise<void> {
    await this.reader.close(reader => reader.close())
  }
}
