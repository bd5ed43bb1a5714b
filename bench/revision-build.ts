// Another revision of this repository, built for the benchmark to run beside the current build: a
// detached git worktree in a temporary folder, linked to this checkout's node_modules (no install),
// compiled with that revision's own build script. `remove` deletes the worktree; it also runs if the
// benchmark is interrupted (SIGINT, SIGTERM) while the build exists.
import { spawnSync } from 'node:child_process'
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

/** Checks `revision` out into a temporary worktree and builds it; throws (having cleaned up) if either fails. */
export function buildRevision (revision: string): RevisionBuild {
  const commit = git(['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]).trim()
  const subject = git(['log', '-1', '--format=%s', commit]).trim()
  const label = `${commit.slice(0, 7)} ${subject.length > 60 ? `${subject.slice(0, 59)}…` : subject}`
  const parent = mkdtempSync(join(tmpdir(), 'bench-revision-'))
  const root = join(parent, 'tree')
  const modules = join(root, 'node_modules')
  let removed = false
  const remove = (): void => {
    if (removed) return
    removed = true
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
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
    run('npm', ['run', 'build', '--silent'], root)
  } catch (error) {
    remove()
    throw error
  }
  return { root, label, remove }
}
