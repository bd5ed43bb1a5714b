/** The exact nearest-rank percentile of known durations (what the histograms' estimates are checked against). */
export function exactPercentile (durations: number[], percent: number): number {
  const sorted = [...durations].sort((a, b) => a - b)
  return sorted[Math.max(1, Math.ceil(percent * sorted.length / 100)) - 1] ?? 0
}
