import { readFileSync } from 'node:fs'

/** A process's resident set size in bytes, read from /proc (0 once it has exited). */
export function rssOf (pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}
