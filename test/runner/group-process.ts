// The node process that runs several test files that may share one (shared-process.ts), for
// run-file.ts's runGroup: each file is imported after the one before it finished. A file's tests
// are subtests of tap's root, which runs one at a time (jobs 1); a subtest queued after them ends
// when they all have, and a boundary subtest after it tells the runner where the file's results end
// (group-boundary.ts).
// Each file's CPU (the processes it ran to their end included: reaped-cpu.ts) and time go to the
// runner on the IPC channel, keyed by the file. Each file's
// t.testdir() folders are named as when it runs alone (tap names them after the main script and its
// arguments: here, the group's), so two groups running at once never share one.
// What a file hands to tap's root to do when it ends (t.teardown / t.after on the root: a helper's
// PostgreSQL cluster, an app built on the root) is done when that file's tests have ended, last
// handed first, as tap does it at the end of a process of the file's own: nothing of one file's
// outlives it into the next file's tests.
//   node <.taprc's node-args> dist/test/runner/group-process.js <file> [file ...]
import { basename, dirname, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { boundaryName, settleName, type GroupFileStats } from './group-boundary.js'
import { reapedSoFar } from './reaped-cpu.js'

/** Where tap's fixture plugin puts a file's t.testdir() folders when the file is the main script. */
function testdirOf (file: string): string {
  const root = process.env.TAP_CWD ?? process.cwd()
  const name = [dirname(relative(root, resolve(file))), basename(file)].join(' ').replace(/[^a-zA-Z0-9._-]+/gi, '-')
  return resolve(root, '.tap/fixtures', name)
}

type Teardown = () => unknown
const teardowns: Teardown[] = []
const handTo = (fn: Teardown): void => { teardowns.push(fn) }
t.teardown = handTo
t.after = handTo

/** The current file's teardowns, last handed first (a teardown may hand on another). */
async function tearDown (): Promise<void> {
  for (let fn = teardowns.pop(); fn !== undefined; fn = teardowns.pop()) await fn()
}

// Tap's root runs one subtest at a time whatever a file sets (t.jobs): the settling subtest must
// start only once all of the file's tests have ended. A file's tests take longer so, not more CPU.
Object.defineProperty(t, 'jobs', { get: () => 1, set: () => {}, configurable: true })
// Each file has the time a file alone has (.taprc's timeout, in TAP_TIMEOUT as for any file), from
// its start: root's t.setTimeout restarts tap's timer and tells the runner (run-file.ts), which
// restarts its own.
const fileTimeoutMs = Number(process.env.TAP_TIMEOUT ?? '30') * 1000
for (const file of process.argv.slice(2)) {
  t.setTimeout(fileTimeoutMs)
  t.testdirName = testdirOf(file)
  const started = performance.now()
  const cpu = process.cpuUsage()
  const reaped = reapedSoFar()
  await import(pathToFileURL(resolve(file)).href)
  await t.test(settleName(file), tearDown)
  await t.test(boundaryName(file), async () => {})
  const used = process.cpuUsage(cpu)
  const children = (reapedSoFar() ?? 0) - (reaped ?? 0)
  const stats: GroupFileStats = { groupFile: file, cpuSeconds: (used.user + used.system) / 1e6 + children, durationMs: performance.now() - started }
  process.send?.(stats)
}
