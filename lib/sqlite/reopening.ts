/**
 * Something that may fail to open, such as a database file: opened when asked for, and while it
 * cannot be, tried again at most once per `retryMs`. The last failure is kept to explain the outage.
 */
export class Reopening<T> {
  private value: T | null = null
  private lastAttempt = 0
  /** Why the last attempt failed; '' while open (or before any attempt). */
  failure = ''

  constructor (
    private readonly open: () => T,
    private readonly retryMs: number,
    /** Called on each failed attempt; `first` when the previous attempt had succeeded (or there was none). */
    private readonly onFailure: (message: string, first: boolean) => void
  ) {}

  /** The open value, without trying to open it. */
  get current (): T | null {
    return this.value
  }

  /** The open value; if there is none, one more attempt when the last is old enough. Null while unavailable. */
  get (): T | null {
    if (this.value === null && Date.now() - this.lastAttempt >= this.retryMs) this.tryOpen()
    return this.value
  }

  /** Opens it now unless it is open; returns the value, or null when it could not be opened. */
  tryOpen (): T | null {
    if (this.value !== null) return this.value
    this.lastAttempt = Date.now()
    try {
      this.value = this.open()
      this.failure = ''
    } catch (err) {
      const first = this.failure === ''
      this.failure = (err as Error).message
      this.onFailure(this.failure, first)
    }
    return this.value
  }

  close (close: (value: T) => void): void {
    if (this.value !== null) close(this.value)
    this.value = null
  }
}
