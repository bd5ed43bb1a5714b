import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { packageRoot } from '../../paths.js'

export interface RunResult { code: number | null, stdout: string, stderr: string }

/** Starts a built entry point (dist/...) with an environment of our own (PATH only, plus `env`). */
export function spawnNode (script: string, args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [join(packageRoot, 'dist', script), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe']
  })
}

/** Runs a built entry point to its end; resolves with its exit code and output. */
export function runNode (script: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnNode(script, args, env)
    child.stdin.end()
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => { stdout += String(chunk) })
    child.stderr.on('data', chunk => { stderr += String(chunk) })
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}
