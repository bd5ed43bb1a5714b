// The processes a test file left running outside its process group: a PostgreSQL server that
// pg_ctl started in a session of its own, for one, when the file was killed before its teardown.
// They are found by a mark in their environment, which every process the file starts inherits
// unless it is given an environment of its own. Named TAP_..., so that what is meant to outlive a
// file (the suite's shared PostgreSQL cluster's keeper drops TAP_* from its environment) keeps running.
import { readdirSync, readFileSync } from 'node:fs'

export const LEFTOVER_MARK = 'TAP_RUN_SUITE_FILE'

function markedWith (pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry)
  } catch {
    return false // gone, or not ours to read
  }
}

function signal (pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try { process.kill(pid, name) } catch { /* gone already */ }
  }
}

/** Stops (SIGTERM, then SIGKILL after `graceMs`) the processes marked `mark`; resolves with how many there were. */
export async function stopLeftovers (mark: string, graceMs = 3_000): Promise<number> {
  let pids: number[]
  try {
    pids = readdirSync('/proc').filter(name => /^\d+$/.test(name)).map(Number)
  } catch {
    return 0 // no /proc: not Linux
  }
  const entry = `${LEFTOVER_MARK}=${mark}`
  const left = pids.filter(pid => pid !== process.pid && markedWith(pid, entry))
  if (left.length === 0) return 0
  signal(left, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline && left.some(pid => markedWith(pid, entry))) await new Promise(resolve => setTimeout(resolve, 100))
  signal(left.filter(pid => markedWith(pid, entry)), 'SIGKILL')
  return left.length
}
