// What a group process (group-process.ts) tells the runner (run-file.ts) about each of its files:
// where its TAP ends (a root subtest of this name) and what it used (an IPC message). Before the
// boundary, a settling subtest: an assertion a file's test makes on tap's root while the test runs
// is queued behind whatever the root holds then (the settling subtest, queued with the file's
// tests), and so comes before the boundary, in the file's own results.
const SETTLE = 'run-suite: after the tests of '
const END = 'run-suite: the end of '

export const settleName = (file: string): string => `${SETTLE}${file}`
export const boundaryName = (file: string): string => `${END}${file}`

/** The file whose results a root-level TAP line of this name ends, or null for any other line. */
export const boundaryFile = (name: string): string | null => name.startsWith(END) ? name.slice(END.length) : null

/** Whether a TAP line is the group process's own (a settling subtest or a boundary) for one of `files`. */
export const isGroupLine = (name: string, files: string[]): boolean => files.some(file => name === settleName(file) || name === boundaryName(file))

export interface GroupFileStats {
  groupFile: string
  cpuSeconds: number
  durationMs: number
}
