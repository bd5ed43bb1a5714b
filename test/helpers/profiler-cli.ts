import { Writable } from 'node:stream'
import type { Test } from 'tap'
import { run } from '../../scripts/profiler/cli.js'
import { runNode, type RunResult } from './run.js'

export const CLI = 'scripts/profiler.js'

/** A stream that keeps what is written to it, as text. */
export function collected (): { stream: Writable, text: () => string } {
  let text = ''
  const stream = new Writable({
    decodeStrings: false,
    write (chunk: string | Buffer, _encoding, done) {
      text += String(chunk)
      done()
    }
  })
  return { stream, text: () => text }
}

/**
 * The command line run in-process (scripts/profiler/cli.ts's `run`): the real argument parsing,
 * store and output bytes and exit code, without a node start per command. `env` is all it sees.
 */
export async function profiler (args: string[], env: Record<string, string>, options: { interrupted?: AbortSignal } = {}): Promise<RunResult> {
  const stdout = collected()
  const stderr = collected()
  const signal = options.interrupted
  const code = await run(args, { env, stdout: stdout.stream, stderr: stderr.stream, ...(signal === undefined ? {} : { interrupted: () => signal }) })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

/** The built command line (dist/scripts/profiler.js) as a child process, run to its end. */
export function profilerBin (args: string[], env: Record<string, string>): Promise<RunResult> {
  return runNode(CLI, args, env)
}

/** Exit code 2 and exactly one line on stderr, nothing on stdout (in-process, or `via` the bin). */
export async function usageError (t: Test, args: string[], env: Record<string, string>, line: string, via = profiler): Promise<void> {
  const res = await via(args, env)
  t.equal(res.code, 2, `${args.join(' ')}: exit 2`)
  t.equal(res.stderr, `profiler: ${line}\n`)
  t.equal(res.stdout, '')
}
