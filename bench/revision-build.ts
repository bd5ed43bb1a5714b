// Another revision of this repository, built for the benchmark to run beside the current build: a
// detached git worktree in a temporary folder, linked to this checkout's node_modules (no install),
// compiled with that revision's own build script. `remove` deletes the worktree; it also runs if the
// benchmark is interrupted (SIGINT, SIGTERM) while the build exists.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { packageRoot } from '../paths.js'

export interface RevisionBuild {
  /** The worktree: its dist/server.js is the build (startBenchServer's `root`). */
  root: string
  /** `<short hash> <subject>`, for the printed tables. */
  label: string
  remove: () => void
}

function run (command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}) in ${cwd}:\n${result.stdout}${result.stderr}`)
  }
  return result.stdout
}

const git = (args: string[]): string => run('git', args, packageRoot)

/**
 * `npm run build` in `cwd`, asynchronous so that a signal meanwhile is handled at once; in a process
 * group of its own, which `remove` ends whole (npm, its shell and the compiler).
 */
async function build (cwd: string, started: (child: ChildProcess) => void): Promise<void> {
  const child = spawn('npm', ['run', 'build', '--silent'], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  started(child)
  let output = ''
  child.stdout.on('data', chunk => { output += String(chunk) })
  child.stderr.on('data', chunk => { output += String(chunk) })
  const code = await new Promise<number | string>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (status, signal) => { resolve(status ?? signal ?? 'unknown') })
  })
  if (code !== 0) throw new Error(`npm run build failed (${code}) in ${cwd}:\n${output}`)
}

/** Checks `revision` out into a temporary worktree and builds it; throws (having cleaned up) if either fails. */
export async function buildRevision (revision: string): Promise<RevisionBuild> {
  let commit: string
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]).trim()
  } catch {
    throw new Error(`no commit named ${revision} in ${packageRoot}`)
  }
  const subject = git(['log', '-1', '--format=%s', commit]).trim()
  const label = `${commit.slice(0, 7)} ${subject.length > 60 ? `${subject.slice(0, 59)}…` : subject}`
  const parent = mkdtempSync(join(tmpdir(), 'bench-revision-'))
  const root = join(parent, 'tree')
  const modules = join(root, 'node_modules')
  let removed = false
  let building: ChildProcess | undefined
  const remove = (): void => {
    if (removed) return
    removed = true
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    if (building?.pid !== undefined && building.exitCode === null && building.signalCode === null) {
      try { process.kill(-building.pid, 'SIGKILL') } catch {}
    }
    // The link first: the worktree's removal must not reach into this checkout's node_modules.
    try { unlinkSync(modules) } catch {}
    try { git(['worktree', 'remove', '--force', root]) } catch {}
    rmSync(parent, { recursive: true, force: true })
    try { git(['worktree', 'prune']) } catch {}
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    remove()
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    git(['worktree', 'add', '--detach', root, commit])
    symlinkSync(realpathSync(join(packageRoot, 'node_modules')), modules)
    await build(root, child => { building = child })
  } catch (error) {
    remove()
    throw error
  }
  return { root, label, remove }
}
