import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { packageRoot } from '../../paths.js'

export interface RunResult { code: number | null, stdout: string, stderr: string }

/**
 * The node processes a test starts preload TypeBox (test/preload-typebox.cts): the entry points they
 * start (server.js, the scripts) use it. Named here, not taken from this process's own preloads:
 * the runner gives those only to a test process that uses TypeBox itself (test/runner/typebox-preload.ts).
 */
export const nodeArgs = [`--require=${join(packageRoot, 'dist', 'test', 'preload-typebox.cjs')}`]

/**
 * Starts a built entry point (dist/...) with an environment of our own (PATH only, plus `env`).
 * `coverage: false` (server.ts's UNCOVERED) for a run whose code other tests already cover: tap adds
 * its coverage hooks to every node process a test starts, whatever `env` says, and they triple the
 * CPU of a command line's run (1.0 s against 3.0 s measured on 2 busy cores); started through env(1),
 * which drops them.
 */
export function spawnNode (script: string, args: string[], env: Record<string, string>, { coverage = true } = {}): ChildProcessWithoutNullStreams {
  const command = [process.execPath, ...nodeArgs, join(packageRoot, 'dist', script), ...args]
  const [file = '', ...rest] = coverage ? command : ['env', '-u', 'NODE_OPTIONS', ...command]
  return spawn(file, rest, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe']
  })
}

/** Runs a built entry point to its end; resolves with its exit code and output (`options` as spawnNode's). */
export function runNode (script: string, args: string[], env: Record<string, string>, options: { coverage?: boolean } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnNode(script, args, env, options)
    child.stdin.end()
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => { stdout += String(chunk) })
    child.stderr.on('data', chunk => { stderr += String(chunk) })
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}

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

/** An entry point's program as a function: its arguments, environment and streams in, its exit code out. */
export type Program = (args: string[], io: { env: Record<string, string>, stdout: Writable, stderr: Writable }) => Promise<number>

/**
 * A program run in-process (what a bin in scripts/ runs): the same arguments, environment and output
 * bytes as `runNode`, without a node start. `env` is all it sees.
 */
export async function runInProcess (program: Program, args: string[], env: Record<string, string>): Promise<RunResult> {
  const stdout = collected()
  const stderr = collected()
  const code = await program(args, { env, stdout: stdout.stream, stderr: stderr.stream })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}
