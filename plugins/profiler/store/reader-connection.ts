import { AsyncReopening } from '../../../lib/reopening.js'
import { HttpError } from '../../../lib/http-error.js'
import type { StoreReader } from './engine.js'

/**
 * The request thread's read connection, whichever engine: opened lazily, reopened at most once
 * per retry delay while it cannot be, and while unavailable every read is a 503 naming the cause.
 * Each (re)open fills the token set from the stored tokens. Its failures are its own, apart
 * from the write health: one line when it starts failing, one when it can be read again.
 */
export class ReaderConnection {
  private readonly reader: AsyncReopening<StoreReader>

  constructor (
    open: () => Promise<StoreReader>,
    retryDelayMs: number,
    onOpened: (reader: StoreReader) => Promise<void>,
    report: {
      /** Each failed attempt; `first` when the previous attempt had succeeded (or there was none). */
      onFailure: (message: string, first: boolean) => void
      /** Opened again after a failure. */
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
      if (this.reader.failure !== '') report.onRecovered()
      return reader
    }, retryDelayMs, report.onFailure)
  }

  /** Opens it now unless it is open; resolves when the attempt is over (failures are reported, not thrown). */
  async tryOpen (): Promise<void> {
    await this.reader.tryOpen()
  }

  /** Runs `read` on the open reader, or throws a 503 while the store cannot be read. */
  async use<T> (read: (reader: StoreReader) => Promise<T>): Promise<T> {
    const reader = await this.reader.get()
    if (reader === null) throw new HttpError(503, `The profile store is unavailable: ${this.reader.failure}`, { name: 'ServiceUnavailableError' })
    return await read(reader)
  }

  async close (): Promise<void> {
    await this.reader.close(reader => reader.close())
  }
}
