// Human units for the profiler's pages: durations in ms (seconds past 1 s), sizes in KiB/MiB/GiB.

/** A duration with about three significant digits: 0.412 ms, 2.48 ms, 12.5 ms, 148 ms, 1.25 s, 12.5 s. */
export function formatMs (ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a'
  if (ms >= 1000) {
    const s = ms / 1000
    return `${s.toFixed(s < 10 ? 2 : s < 100 ? 1 : 0)} s`
  }
  if (ms === 0) return '0 ms'
  return `${ms.toFixed(ms < 1 ? 3 : ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`
}

const BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB']

/** Bytes in binary units with one decimal: 512 B, 24.8 KiB, 24.8 MiB. */
export function formatBytes (bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return 'n/a'
  if (bytes < 1024) return `${Math.round(bytes)} B`
  let value = bytes
  let unit = -1
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(value < 100 ? 1 : 0)} ${BYTE_UNITS[unit] ?? ''}`
}
