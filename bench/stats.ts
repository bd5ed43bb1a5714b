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

/** Runs fn `iterations` times (after a few warm-up calls) and returns each call's milliseconds. */
export async function timeCalls (iterations: number, fn: () => unknown): Promise<number[]> {
  for (let i = 0; i < Math.min(5, iterations); i++) await fn()
  const times: number[] = []
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return times
}

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits))
