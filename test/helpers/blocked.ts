import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'

/**
 * A temp folder holding a regular file named `blocked`: nothing can be created below
 * `<dir>/blocked/`, even by root. Not t.testdir(): the app helpers reset that folder.
 */
export function blockedDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'blocked-'))
  writeFileSync(join(dir, 'blocked'), 'a regular file where a folder should be')
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}
