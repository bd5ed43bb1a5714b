// An npm script run beside the test files (`--beside=lint`: npm test's ESLint and knip). Each is
// one thread, and run before the files, as they were, they kept one of the machine's two cores idle
// for their 25 to 30 s (no lint cache: a fresh clone); beside the files, which keep both cores busy,
// that core does their work. Its output is held until it ends (not mixed with the files' lines);
// failing, it counts as a failed file.
import { spawn } from 'node:child_process'
import { cpuOfEnded } from './reaped-cpu.js'
import type { FileResult } from './run-file.js'

const OUTPUT_TAIL = 64 * 1024

export interface BesideScript {
  /** Its result, as a file's: no assertions, a problem when it exits non-zero; its output in stderrTail. */
  done: Promise<FileResult>
  /** Kills it with its process group (a run stopped midway). */
  stop: () => void
}

export function runBesideScript (name: string, root: string): BesideScript {
  const started = performance.now()
  const label = `npm run ${name}`
  const child = spawn('npm', ['run', name, '--silent'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  const keep = (chunk: Buffer): void => { output = (output + String(chunk)).slice(-OUTPUT_TAIL) }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const done = new Promise<FileResult>(resolve => {
    const result = (problem: string | null, cpuSeconds: number | null): FileResult => ({
      file: label, pass: 0, fail: 0, skip: 0, todo: 0, failures: [], problem, leftovers: 0, stderrTail: output, durationMs: performance.now() - started, cpuSeconds
    })
    child.on('error', error => { resolve(result(`could not start: ${error.message}`, null)) })
    // Reaped just before 'exit': its CPU is taken here, not counted in the next file that ends.
    child.on('exit', code => {
      const cpuSeconds = cpuOfEnded()
      child.on('close', () => { resolve(result(code === 0 ? null : `exited with code ${String(code)}`, cpuSeconds)) })
    })
  })
  return {
    done,
    stop: () => {
      try { if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL') } catch { /* ended already */ }
    }
  }
}
