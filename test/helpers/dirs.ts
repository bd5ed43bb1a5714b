import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'

const testDirs = new WeakMap<Test, string>()

/**
 * A new, empty folder of this test's own. `t.testdir()` wipes its folder on every call, so it is
 * called once per test and each caller (each app, each server) gets a subfolder: a test that
 * builds two apps no longer deletes the first one's open database files.
 */
export function freshDir (t: Test, prefix = 'dir-'): string {
  let base = testDirs.get(t)
  if (base === undefined) {
    base = t.testdir()
    testDirs.set(t, base)
  }
  return mkdtempSync(join(base, prefix))
}
