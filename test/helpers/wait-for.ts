interface WaitOptions {
  timeoutMs?: number
  /** The first wait between two checks; each next one half as long again, up to `maxIntervalMs`. */
  intervalMs?: number
  /**
   * The longest wait between two checks (100 ms, or `intervalMs` if longer). A check is often a
   * request or a query, on both sides of it: every 10 ms through a wait of seconds (a profile
   * written by the writer thread, a server restarting) is hundreds of them, CPU taken from the
   * rest of the suite; growing waits keep a quick condition seen quickly and a slow one cheap.
   */
  maxIntervalMs?: number
  /** Named in the timeout's message. */
  what?: string
  /** A check that throws (a server or database restarting) counts as not yet; the last error is named on timeout. */
  retryOnError?: boolean
}

/**
 * Resolves as soon as `condition` holds, checking every `intervalMs`; rejects after `timeoutMs`
 * naming what was awaited. For what happens in the background (the writer thread, a server).
 */
export async function waitFor (
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 10, maxIntervalMs = 100, what = 'the condition', retryOnError = false }: WaitOptions = {}
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  let interval = intervalMs
  const holds = async (): Promise<boolean> => {
    if (!retryOnError) return await condition()
    try {
      return await condition()
    } catch (error) {
      lastError = error
      return false
    }
  }
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError === undefined ? '' : ` (last error: ${String(lastError)})`}`)
    await new Promise(resolve => setTimeout(resolve, interval))
    interval = Math.min(interval * 1.5, Math.max(intervalMs, maxIntervalMs))
  }
}

/**
 * Resolves once the clock reads `atMs` or later: for behaviour defined by elapsed time itself (a
 * retry delay, a time partition's edge), where no other event tells that the time has come. A
 * loaded machine can only make the wait longer, never the condition false.
 */
export async function untilClock (atMs: number): Promise<void> {
  await waitFor(() => Date.now() >= atMs, { timeoutMs: Math.max(0, atMs - Date.now()) + 10_000, maxIntervalMs: 10, what: `the clock to reach ${new Date(atMs).toISOString()}` })
}
