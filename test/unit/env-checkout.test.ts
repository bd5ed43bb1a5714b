// run-suite: shares a process
// The environment panel's build commit, read from a checkout's files without spawning git: a
// branch (loose or packed), a detached HEAD, a worktree's `.git` file, and no checkout at all.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { checkoutCommit } from '../../plugins/profiler/panels/env/checkout.js'
import { envView } from '../../plugins/profiler/panels/env/view.js'

const A = 'a'.repeat(40)
const B = 'b'.repeat(40)

function write (path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

t.test('no .git: no commit, and the page says so', async t => {
  const root = t.testdir({ 'package.json': '{}' })
  t.equal(checkoutCommit(root), null)
  const data = { version: '1', commit: null, node: 'v1', fastify: '5', deployment: 'x', nodeEnv: null, startedAt: '', configuration: {} }
  t.equal(envView(data).commit, 'not built from a checkout')
})

t.test('a branch, loose then packed; a detached HEAD', async t => {
  const root = t.testdir({})
  write(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  write(join(root, '.git', 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted\n${B} refs/heads/main\n`)
  t.equal(checkoutCommit(root), B, 'packed')
  write(join(root, '.git', 'refs', 'heads', 'main'), `${A}\n`)
  t.equal(checkoutCommit(root), A, 'a loose ref comes before packed-refs')
  write(join(root, '.git', 'HEAD'), `${B}\n`)
  t.equal(checkoutCommit(root), B, 'detached')
  write(join(root, '.git', 'HEAD'), 'ref: refs/heads/gone\n')
  t.equal(checkoutCommit(root), null, 'a branch without a commit yet')
})

t.test('a worktree: .git names its folder, whose commondir holds the refs', async t => {
  const root = t.testdir({})
  const main = join(root, 'main', '.git')
  const own = join(main, 'worktrees', 'wt')
  write(join(own, 'HEAD'), 'ref: refs/heads/feature\n')
  write(join(own, 'commondir'), '../..\n')
  write(join(main, 'refs', 'heads', 'feature'), `${A}\n`)
  write(join(root, 'wt', '.git'), `gitdir: ${own}\n`)
  t.equal(checkoutCommit(join(root, 'wt')), A)
  write(join(root, 'wt', '.git'), 'not a pointer\n')
  t.equal(checkoutCommit(join(root, 'wt')), null)
})
