// Durations as the rules file and the stats page's windows spell them: a count of 1 to 9 digits and
// a unit (500ms, 30s, 5m, 4h, 1d).
const DURATION = /^([0-9]{1,9})(ms|s|m|h|d)$/
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** The milliseconds a duration's text says, or undefined when it is not one. */
export function durationMs (text: string): number | undefined {
  const match = DURATION.exec(text)
  return match === null ? undefined : Number(match[1]) * (UNIT_MS[match[2] as string] as number)
}

/** A duration in the largest unit that divides it: 500ms, 30s, 5m, 4h, 1d (0: 0d). */
export function durationText (ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}
