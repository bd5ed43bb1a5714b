// The suite's temp folder (each file's TMPDIR): a folder of this run's own in memory (/dev/shm,
// when it is a tmpfs with room), removed when the run ends. The PostgreSQL clusters the tests start
// live under the temp folder (test/helpers/postgres.ts), and on the disk's file system each CREATE
// DATABASE (some 300 files) and each copy of the cluster template cost PostgreSQL and cp seconds of
// kernel CPU finding free inodes; in memory that work is gone (the whole suite's process tree, perf
// stat: 655 -> 611 s of CPU). Without such a tmpfs the files get the usual temp folder.
import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { join } from 'node:path'

const SHM = '/dev/shm'
const TMPFS_MAGIC = 0x01021994
/** The room a run may need at once (three files, each with its clusters and stores). */
const NEEDED_BYTES = 2 * 1024 ** 3

/** Whether /dev/shm is a tmpfs with room for a run. */
export function tmpfsHasRoom (): boolean {
  try {
    const fs = statfsSync(SHM)
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= NEEDED_BYTES
  } catch {
    return false // no /dev/shm: not Linux
  }
}

/** A new temp folder in memory for this run, or null when there is no tmpfs with room. */
export function makeTempFolder (): string | null {
  if (!tmpfsHasRoom()) return null
  try {
    const dir = mkdtempSync(join(SHM, 'run-suite-'))
    // As /tmp: the postgres user that runs the clusters (as root) must reach its folders in it.
    chmodSync(dir, 0o1777)
    return dir
  } catch {
    return null
  }
}

export function removeTempFolder (dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}
