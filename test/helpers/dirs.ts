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
    // Kept after the test (under .tap/fixtures/, wiped by the next run's testdir()): tap removed it
    // while a closing app's threads could still write there, a rare ENOTEMPTY in teardown.
    t.saveFixture = true
    base = t.testdir()
    testDirs.set(t, base)
  }
  return mkdtempSync(join(base, prefix))
}
