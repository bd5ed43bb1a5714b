// The order a run takes its files in: the longest first (by how long each took in the last run
// that ran it), so that no long file starts last and runs alone while the other cores idle. A file
// not seen before goes first. The record is a cache: deleting it only costs one run's order. A
// clone that has none yet (CI's, a newcomer's first run) takes the durations of an idle run kept
// with the sources (test/runner/durations.json): taken alphabetically, the long files that happened
// to come last ran on while the other cores idled (an idle fresh clone: 214.7 s for the files, against
// 201.6 s longest first, 29 Nov).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

export type Durations = Record<string, number>

function recordPath (root: string): string {
  return join(root, 'node_modules', '.cache', 'run-suite', 'durations.json')
}

/** The durations of an idle run, kept with the sources: refreshed by copying a run's record there. */
function keptPath (root: string): string {
  return join(root, 'test', 'runner', 'durations.json')
}

function readRecord (path: string): Durations {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
    return typeof parsed === 'object' && parsed !== null ? parsed as Durations : {}
  } catch {
    return {}
  }
}

/** The last runs' durations, over the kept ones for the files they have not run yet. */
export function readDurations (root: string): Durations {
  return { ...readRecord(keptPath(root)), ...readRecord(recordPath(root)) }
}

/** Keeps the new runs' durations (ms) beside the others' (of the files that still exist). */
export function writeDurations (root: string, previous: Durations, measured: Durations): void {
  const path = recordPath(root)
  const kept = Object.fromEntries(Object.entries(previous).filter(([file]) => existsSync(resolve(root, file))))
  mkdirSync(dirname(path), { recursive: true })
  // A new file renamed into place, not the old one rewritten: a worktree's node_modules hard-linked
  // to another's (cp -al) would have the run write into every copy's record.
  const written = `${path}.${process.pid}`
  writeFileSync(written, JSON.stringify({ ...kept, ...measured }, null, 1) + '\n')
  renameSync(written, path)
}

export function longestFirst (files: string[], durations: Durations): string[] {
  return [...files].sort((a, b) => timeOf([b], durations) - timeOf([a], durations) || a.localeCompare(b))
}

/** How long some files took together in the last run (a file not seen before: the longest). */
export function timeOf (files: string[], durations: Durations): number {
  return files.reduce((sum, file) => sum + (durations[file] ?? Number.POSITIVE_INFINITY), 0)
}
