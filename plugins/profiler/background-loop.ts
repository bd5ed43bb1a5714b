/**
 * Runs a step in the background: again 1 ms later while the step reports that it did something
 * (more may be left), else every `intervalMs`. A failing step is reported and the loop goes on.
 * The timer never keeps the process alive; stop() also ends a loop whose step is still running.
 */
export class BackgroundLoop {
  private timer: NodeJS.Timeout | null = null
  private running = false
  /** Woken while a step ran: the next one runs right after it. */
  private woken = false
  private tick: (() => Promise<void>) | null = null

  constructor (
    private readonly step: () => boolean | Promise<boolean>,
    private readonly onError: (err: unknown) => void
  ) {}

  start (intervalMs: number): void {
    const tick = async (): Promise<void> => {
      let worked = false
      this.running = true
      this.woken = false
      try {
        worked = await this.step()
      } catch (err) {
        this.onError(err)
      } finally {
        this.running = false
      }
      if (this.timer === null) return // stopped while the step ran
      this.timer = setTimeout(tick, worked || this.woken ? 1 : intervalMs)
      this.timer.unref()
    }
    this.tick = tick
    this.timer = setTimeout(tick, intervalMs)
    this.timer.unref()
  }

  /** Runs the next step 1 ms from now instead of at the interval (after the running one, if any). */
  wake (): void {
    if (this.running) this.woken = true
    if (this.timer === null || this.running || this.tick === null) return
    clearTimeout(this.timer)
    this.timer = setTimeout(this.tick, 1)
    this.timer.unref()
  }

  stop (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.tick = null
  }
}
