/** p-th percentile (0-100) of a list of numbers, nearest rank. */
export function percentile (values: number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank] ?? Number.NaN
}

export function median (values: number[]): number {
  return percentile(values, 50)
}

/** Lets the event loop run its timers and socket events (awaiting a synchronous call runs neither). */
const turnOfTheLoop = async (): Promise<void> => { await new Promise(resolve => setImmediate(resolve)) }

/**
 * Runs fn `iterations` times (after a few warm-up calls) and returns each call's milliseconds.
 * Between calls (untimed) the event loop takes a turn: a long run of synchronous in-process calls
 * otherwise starves fetch's connection pool, which then misses that the server closed an idle
 * keep-alive connection (KEEP_ALIVE_TIMEOUT) and sends the next request on it ("other side closed").
 */
export async function timeCalls (iterations: number, fn: () => unknown): Promise<number[]> {
  for (let i = 0; i < Math.min(5, iterations); i++) {
    await fn()
    await turnOfTheLoop()
  }
  const times: number[] = []
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
    await turnOfTheLoop()
  }
  return times
}

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits))

/** Each round's after − before of the request thread's µs, to 0.1 (runs of the same round at the same index). */
export function perRoundGrowth (after: ReadonlyArray<{ requestUs: number }>, before: ReadonlyArray<{ requestUs: number }>): number[] {
  return after.map((run, i) => round(run.requestUs - (before[i]?.requestUs ?? Number.NaN), 1))
}
