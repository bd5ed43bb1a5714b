// The CPU a PostgreSQL cluster used, read from /proc (Linux): the postmaster's own, what it collected
// of its children that ended (cutime, cstime), and its live children's (the backends, the
// background workers). What the profiler costs on PostgreSQL includes the server's work.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function statFields (pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null // the process ended between the listing and the read
  }
}

/** The cluster's CPU so far in ms; 0 when its data folder holds no running postmaster. */
export function clusterCpuMs (dataDir: string): number {
  const pidFile = join(dataDir, 'postmaster.pid')
  if (!existsSync(pidFile)) return 0
  const postmaster = readFileSync(pidFile, 'utf8').split('\n')[0] ?? ''
  let ticks = 0
  for (const pid of readdirSync('/proc').filter(name => /^\d+$/.test(name))) {
    const fields = statFields(pid)
    if (fields === null) continue
    // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    if (pid === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    else if (fields[1] === postmaster) ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks * TICK_MS
}
