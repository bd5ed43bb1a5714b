// A command run beside the test files, whose outcome the runner is handed (`--beside-fd=3`): npm
// test's lint, run beside the build by test/npm-test.mjs (both are one thread; one after the other
// they left a core idle). Its outcome comes as one JSON text on the fd, written when it ended; it
// counts as one of the run's files: failing, it fails the run, and its output is printed.
import { Socket } from 'node:net'
import { text } from 'node:stream/consumers'
import type { FileResult } from './run-file.js'

interface Outcome { name: string, problem: string | null, output: string, durationMs: number }

/** The outcome on `fd`, as a file's result (no assertions; a problem when it failed); a broken hand-over is a problem too. */
export async function besideOutcome (fd: number): Promise<FileResult> {
  let outcome: Outcome
  try {
    // A pipe, read as a socket: not a blocking read held in libuv's thread pool all run long.
    outcome = JSON.parse(await text(new Socket({ fd, readable: true, writable: false }))) as Outcome
  } catch (err) {
    outcome = { name: `the command beside the files (fd ${fd})`, problem: `no outcome handed over: ${(err as Error).message}`, output: '', durationMs: 0 }
  }
  // Its CPU is its parent's (npm-test.mjs) to count, not in this run's children.
  return { file: outcome.name, pass: 0, fail: 0, skip: 0, todo: 0, failures: [], problem: outcome.problem, leftovers: 0, stderrTail: outcome.output, durationMs: outcome.durationMs, cpuSeconds: null }
}
