/**
 * Like Reopening (lib/sqlite/reopening.ts), for something opened asynchronously, such as a
 * PostgreSQL pool or the profile store's reader: opened when asked for, and while it cannot be,
 * tried again at most once per `retryMs`. Callers asking during an attempt share it.
 */
export class AsyncReopening<T> {
  private value: T | null = null
  private opening: Promise<T | null> | null = null
  private lastAttempt = 0
  /** Why the last attempt failed; '' while open (or before any attempt). */
  failure = ''

  constructor (
    private readonly open: () => Promise<T>,
    private readonly retryMs: number,
    /** Called on each failed attempt; `first` when the previous attempt had succeeded (or there was none). */
    private readonly onFailure: (message: string, first: boolean) => void
  ) {}

  get current (): T | null {
    return this.value
  }

  /** The open value; if there is none, one more attempt when the last is old enough. Null while unavailable. */
  async get (): Promise<T | null> {
    if (this.value !== null) return this.value
    if (this.opening !== null) return await this.opening
    if (Date.now() - this.lastAttempt >= this.retryMs) return await this.tryOpen()
    return null
  }

  /** Opens it now unless it is open (or being opened); resolves with the value, or null when it could not be opened. */
  tryOpen (): Promise<T | null> {
    if (this.value !== null) return Promise.resolve(this.value)
    if (this.opening !== null) return this.opening
    this.lastAttempt = Date.now()
    this.opening = this.open().then(value => {
      this.value = value
      this.failure = ''
      return value
    }, (err: unknown) => {
      const first = this.failure === ''
      this.failure = err instanceof Error ? err.message : String(err)
      this.onFailure(this.failure, first)
      return null
    }).finally(() => { this.opening = null })
    return this.opening
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
