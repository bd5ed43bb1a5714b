/**
 * Runs a step in the background: again 1 ms later while the step reports that it did something
 * (more may be left), else every `intervalMs`. A failing step is reported and the loop goes on.
 * The timer never keeps the process alive; stop() also ends a loop whose step is still running.
 */
export class BackgroundLoop {
  private timer: NodeJS.Timeout | null = null

  constructor (
    private readonly step: () => boolean | Promise<boolean>,
    private readonly onError: (err: unknown) => void
  ) {}

  start (intervalMs: number): void {
    const tick = async (): Promise<void> => {
      let worked = false
      try {
        worked = await this.step()
      } catch (err) {
        this.onError(err)
      }
      if (this.timer === null) return // stopped while the step ran
      this.timer = setTimeout(tick, worked ? 1 : intervalMs)
      this.timer.unref()
    }
    this.timer = setTimeout(tick, intervalMs)
    this.timer.unref()
  }

  stop (): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
