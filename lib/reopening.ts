// Something that may fail to open (a SQLite file, a PostgreSQL pool, the profile store's reader):
// opened when asked for, and while it cannot be, tried again at most once per `retryMs`. The last
// failure is kept to explain the outage. Reopening opens synchronously, AsyncReopening with a promise;
// both keep the same bookkeeping (ReopeningState).

/** Called on each failed attempt; `first` when the previous attempt had succeeded (or there was none). */
type OnFailure = (message: string, first: boolean) => void

abstract class ReopeningState<T> {
  protected value: T | null = null
  private lastAttempt = 0
  /** Why the last attempt failed; '' while open (or before any attempt). */
  failure = ''

  constructor (private readonly retryMs: number, private readonly onFailure: OnFailure) {}

  /** The open value, without trying to open it. */
  get current (): T | null {
    return this.value
  }

  /** Whether the last attempt is old enough for another. */
  protected due (): boolean {
    return Date.now() - this.lastAttempt >= this.retryMs
  }

  protected attempting (): void {
    this.lastAttempt = Date.now()
  }

  protected opened (value: T): T {
    this.value = value
    this.failure = ''
    return value
  }

  protected failed (err: unknown): null {
    const first = this.failure === ''
    this.failure = err instanceof Error ? err.message : String(err)
    this.onFailure(this.failure, first)
    return null
  }
}

export class Reopening<T> extends ReopeningState<T> {
  constructor (private readonly open: () => T, retryMs: number, onFailure: OnFailure) {
    super(retryMs, onFailure)
  }

  /** The open value; if there is none, one more attempt when the last is old enough. Null while unavailable. */
  get (): T | null {
    if (this.value === null && this.due()) this.tryOpen()
    return this.value
  }

  /** Opens it now unless it is open; returns the value, or null when it could not be opened. */
  tryOpen (): T | null {
    if (this.value !== null) return this.value
    this.attempting()
    try {
      return this.opened(this.open())
    } catch (err) {
      return this.failed(err)
    }
  }

  close (close: (value: T) => void): void {
    if (this.value !== null) close(this.value)
    this.value = null
  }
}

/** Reopening for something opened asynchronously: callers asking during an attempt share it. */
export class AsyncReopening<T> extends ReopeningState<T> {
  private opening: Promise<T | null> | null = null

  constructor (private readonly open: () => Promise<T>, retryMs: number, onFailure: OnFailure) {
    super(retryMs, onFailure)
  }

  /** The open value; if there is none, one more attempt when the last is old enough. Null while unavailable. */
  async get (): Promise<T | null> {
    if (this.value !== null) return this.value
    if (this.opening !== null) return await this.opening
    if (this.due()) return await this.tryOpen()
    return null
  }

  /** Opens it now unless it is open (or being opened); resolves with the value, or null when it could not be opened. */
  tryOpen (): Promise<T | null> {
    if (this.value !== null) return Promise.resolve(this.value)
    if (this.opening !== null) return this.opening
    this.attempting()
    this.opening = this.open().then(value => this.opened(value), (err: unknown) => this.failed(err))
      .finally(() => { this.opening = null })
    return this.opening
  }

  /**
   * `value` failed in use with `err`: it is forgotten and closed (unless it was replaced already),
   * the failure reported, and the next attempt is due a retry delay from now, not at once.
   */
  async lose (value: T, err: unknown, close: (value: T) => Promise<void> | void): Promise<void> {
    if (this.value !== value) return
    this.value = null
    this.attempting()
    this.failed(err)
    await close(value)
  }

  /** Forgets the open value (after it failed) so that the next get() opens it again. */
  async reset (close: (value: T) => Promise<void> | void): Promise<void> {
    const value = this.value
    this.value = null
    if (value !== null) await close(value)
  }

  async close (close: (value: T) => Promise<void> | void): Promise<void> {
    if (this.opening !== null) await this.opening
    await this.reset(close)
  }
}
