// The order a run takes its files in: the longest first (by how long each took in the last run
// that ran it), so that no long file starts last and runs alone while the other cores idle. A file
// not seen before goes first. The record is a cache: deleting it only costs one run's order.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

export type Durations = Record<string, number>

function recordPath (root: string): string {
  return join(root, 'node_modules', '.cache', 'run-suite', 'durations.json')
}

export function readDurations (root: string): Durations {
  try {
    const parsed: unknown = JSON.parse(readFileSync(recordPath(root), 'utf8'))
    return typeof parsed === 'object' && parsed !== null ? parsed as Durations : {}
  } catch {
    return {}
  }
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
