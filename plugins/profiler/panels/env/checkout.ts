// The commit a git checkout is at, read from its files (never by spawning git): `.git` as a folder,
// or as a file naming it (a worktree, a submodule); HEAD as a commit (detached) or a branch, found
// loose or in packed-refs. Read once per process (the environment panel is per-process).
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

function readTrimmed (path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : null
}

/** The folder holding HEAD: `.git` itself, or the one a `.git` file names ("gitdir: ..."). */
function gitDirOf (root: string): string | null {
  const dotGit = join(root, '.git')
  if (!existsSync(dotGit)) return null
  if (statSync(dotGit).isDirectory()) return dotGit
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]
  return pointer === undefined ? null : resolve(root, pointer.trim())
}

/** The commit a ref names: its loose file (in the worktree's own folder, then the shared one), else packed-refs. */
function resolveRef (gitDir: string, commonDir: string, ref: string): string | null {
  for (const dir of [gitDir, commonDir]) {
    const loose = readTrimmed(join(dir, ref))
    if (loose !== null && COMMIT.test(loose)) return loose
  }
  const packed = readTrimmed(join(commonDir, 'packed-refs')) ?? ''
  for (const line of packed.split('\n')) {
    const [commit, name] = line.split(' ')
    if (name === ref && commit !== undefined && COMMIT.test(commit)) return commit
  }
  return null
}

/** The commit checked out in the git checkout at `root`; null when `root` is not one (or it cannot be read). */
export function checkoutCommit (root: string): string | null {
  try {
    const gitDir = gitDirOf(root)
    if (gitDir === null) return null
    const common = readTrimmed(join(gitDir, 'commondir'))
    const commonDir = common === null ? gitDir : resolve(gitDir, common)
    const head = readTrimmed(join(gitDir, 'HEAD'))
    if (head === null) return null
    if (COMMIT.test(head)) return head
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1]
    return ref === undefined ? null : resolveRef(gitDir, commonDir, ref)
  } catch {
    return null
  }
}
