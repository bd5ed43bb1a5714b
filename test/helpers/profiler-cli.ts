import type { Test } from 'tap'
import { run } from '../../plugins/profiler/cli/cli.js'
import { runInProcess, runNode, type RunResult } from './run.js'

export const CLI = 'scripts/profiler.js'

/**
 * The command line run in-process (plugins/profiler/cli/cli.ts's `run`): the real argument parsing,
 * store and output bytes and exit code, without a node start per command.
 */
export function profiler (args: string[], env: Record<string, string>): Promise<RunResult> {
  return runInProcess(run, args, env)
}

/** The built command line (dist/scripts/profiler.js) as a child process, run to its end (`options` as runNode's). */
export function profilerBin (args: string[], env: Record<string, string>, options: { coverage?: boolean } = {}): Promise<RunResult> {
  return runNode(CLI, args, env, options)
}

/** Exit code 2 and exactly one line on stderr, nothing on stdout (in-process, or `via` the bin). */
export async function usageError (t: Test, args: string[], env: Record<string, string>, line: string, via = profiler): Promise<void> {
  const res = await via(args, env)
  t.equal(res.code, 2, `${args.join(' ')}: exit 2`)
  t.equal(res.stderr, `profiler: ${line}\n`)
  t.equal(res.stdout, '')
}
