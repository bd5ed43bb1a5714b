import type { Test } from 'tap'
import { runNode, type RunResult } from './run.js'

export const CLI = 'scripts/profiler.js'

/** The built command line, run to its end with an environment of our own. */
export function profiler (args: string[], env: Record<string, string>): Promise<RunResult> {
  return runNode(CLI, args, env)
}

/** Exit code 2 and exactly one line on stderr, nothing on stdout. */
export async function usageError (t: Test, args: string[], env: Record<string, string>, line: string): Promise<void> {
  const res = await profiler(args, env)
  t.equal(res.code, 2, `${args.join(' ')}: exit 2`)
  t.equal(res.stderr, `profiler: ${line}\n`)
  t.equal(res.stdout, '')
}
