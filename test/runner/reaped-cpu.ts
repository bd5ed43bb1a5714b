// The CPU a file's process used, children included, from what the runner's children that ended used
// (cutime + cstime in /proc/self/stat): Node reaps a child just before its 'exit' event, and the
// runner starts no other processes, so what was added since the last file ended is this file's.
// Two files ending in the same instant would count both in the first. A process that left the
// file's tree (a PostgreSQL server that pg_ctl started in a session of its own) is not counted.
import { readFileSync } from 'node:fs'

/** The clock ticks a second of /proc's times (USER_HZ: 100 on every Linux port Node runs on). */
const TICKS_A_SECOND = 100

/** CPU seconds (user + sys) of this process's children that ended so far, or null without /proc. */
export function reapedSoFar (): number | null {
  let stat: string
  try {
    stat = readFileSync('/proc/self/stat', 'latin1')
  } catch {
    return null // not Linux
  }
  // The fields after the command's name (which may hold spaces) in brackets: cutime and cstime are 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[13]) + Number(fields[14])) / TICKS_A_SECOND
}

let counted = reapedSoFar()

/** Called as a file's process exits: the CPU seconds of the children that ended since the last call (or null without /proc). */
export function cpuOfEnded (): number | null {
  const now = reapedSoFar()
  if (now === null || counted === null) return null
  const since = now - counted
  counted = now
  return since
}
