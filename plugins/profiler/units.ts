// Human units for the profiler's pages and command line: durations in ms (seconds past 1 s), sizes
// in KiB/MiB/GiB, times as Symfony's listing shows them, and status colours.

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

/** A duration in ms to the microsecond: how profiles, panels and statistics keep them. */
export const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000

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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (n: number): string => String(n).padStart(2, '0')

/** `d-M-Y H:i:s` as Symfony's listing shows it (UTC), e.g. 22-Nov-2026 02:28:00. */
export function listTime (iso: string): string {
  const d = new Date(iso)
  return `${two(d.getUTCDate())}-${MONTHS[d.getUTCMonth()] ?? ''}-${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
}

/** Symfony's colours: above 399 an error, above 299 a warning, else success. */
export function statusClass (status: number): string {
  return status > 399 ? 'status-error' : status > 299 ? 'status-warning' : 'status-success'
}
