import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { freshDir } from './dirs.js'

/** A new folder holding a regular file named `blocked`: nothing can be created below `<dir>/blocked/`, even by root. */
export function blockedDir (t: Test): string {
  const dir = freshDir(t, 'blocked-')
  writeFileSync(join(dir, 'blocked'), 'a regular file where a folder should be')
  return dir
}
