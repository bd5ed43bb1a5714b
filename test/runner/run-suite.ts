// `npm test`'s runner (docs/development.md, "The suite"): every compiled test file, or the ones
// named (`npm test -- test/e2e/server.test.ts`), each as a plain node process with .taprc's
// preloads, a few at a time, the longest first. tap stays the test files' library; its runner,
// which adds coverage hooks and source-map support to every process a test starts, is
// `npm run test:coverage`. Ends with tap's summary line (`# { total: N, pass: N, fail: N, ... }`,
// read by .ci/run) and a non-zero exit code when anything failed.
//   node dist/test/runner/run-suite.js [--jobs=N] [--timeout=SECONDS] [--alone] [--beside-fd=FD] [file or folder ...]
// --alone: every file in a process of its own, those that may share one too (shared-process.ts).
import { readDurations, writeDurations, longestFirst, timeOf, type Durations } from './durations.js'
import { constants } from 'node:os'
import { besideOutcome } from './beside-script.js'
import { runFile, runGroup, stopRunningFiles, type FileResult } from './run-file.js'
import { sortBySharing } from './shared-process.js'
import { inGroups } from './groups.js'
import { loadSuiteConfig } from './suite-config.js'
import { makeTempFolder, removeTempFolder } from './temp-folder.js'
import { selectTestFiles } from './test-files.js'
import { apartByTypebox, preloadsFor } from './typebox-preload.js'

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`
const cpu = (result: FileResult): string => result.cpuSeconds === null ? '' : `, ${result.cpuSeconds.toFixed(1)} s CPU`
const isFailed = (result: FileResult): boolean => result.fail > 0 || result.problem !== null

function printFailure (result: FileResult): void {
  console.log(`\n# ${result.file}: failed${result.problem === null ? '' : ` (${result.problem})`}`)
  for (const failure of result.failures) console.log(failure)
  if (result.stderrTail.trim() !== '') {
    console.log(`# the end of ${result.file}'s stderr:`)
    console.log(result.stderrTail.trimEnd().split('\n').map(line => `#   ${line}`).join('\n'))
  }
}

const started = performance.now()
// --beside-fd=3: the outcome of a command run beside the files (npm test's lint: beside-script.ts),
// read from that fd and counted as one of the files. It and --alone are taken out of argv first:
// tap's config reads argv too, and knows no such options.
const besideArg = process.argv.find(arg => arg.startsWith('--beside-fd='))
if (besideArg !== undefined) process.argv.splice(process.argv.indexOf(besideArg), 1)
const alone = process.argv.includes('--alone')
if (alone) process.argv.splice(process.argv.indexOf('--alone'), 1)
const config = await loadSuiteConfig()
const args = process.argv.slice(2)
/** A whole-number option (--name=N), or its .taprc value. */
function option (name: string, fallback: number): number {
  const arg = args.find(arg => arg.startsWith(`--${name}=`))
  if (arg === undefined) return fallback
  const value = Number(arg.slice(`--${name}=`.length))
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} wants a whole number >= 1: ${arg}`)
  return value
}
const jobs = option('jobs', config.jobs)
const timeoutMs = option('timeout', config.timeoutMs / 1000) * 1000
const durations = readDurations(config.root)
const selected = selectTestFiles(config.root, args.filter(arg => !arg.startsWith('--')))
const total = selected.length
if (total === 0) throw new Error('no test files to run')
// The files that say they may share a process and pass its check go several to a process
// (shared-process.ts, groups.ts); those that never reach TypeBox apart from those that do, so that
// their processes go without its preload (typebox-preload.ts); one such file alone runs alone.
const sharing = alone ? { shared: [], alone: selected, refused: [] } : sortBySharing(config.root, selected)
const sharers = apartByTypebox(sharing.shared, config.root)
const sharedAlone = sharers.filter(files => files.length < 2).flat()
const groups = sharers.filter(files => files.length >= 2).flatMap(files => inGroups(files, durations))
const queue = [...groups, ...longestFirst([...sharing.alone, ...sharedAlone], durations).map(file => [file])]
  .sort((a, b) => timeOf(b, durations) - timeOf(a, durations))
console.log(`# ${total} test file(s) in ${queue.length + sharing.refused.length} process(es), ${Math.min(jobs, queue.length)} at a time (plain node, no coverage: npm run test:coverage for that)`)
if (groups.length > 0) console.log(`# ${sharing.shared.length} of them share a process, ${groups.length} group(s): one that fails has its files run again one per process`)

const beside = besideArg === undefined ? null : besideOutcome(Number(besideArg.slice('--beside-fd='.length)))

const tempFolder = makeTempFolder()
if (tempFolder !== null) process.once('exit', () => { removeTempFolder(tempFolder) })
// Ctrl-C (SIGINT: the terminal sends it to the runner's process group only, not to the files',
// each in a group of its own) or SIGTERM: no file is started any more, the running ones are stopped
// with what they started (PostgreSQL clusters in the temp folder among them), and the runner exits
// as the signal's default would (128 + its number), which removes the temp folder ('exit').
const interrupted: { exiting: Promise<void> | null } = { exiting: null }
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`# ${signal}: stopping the file(s) still running`)
    queue.length = 0
    interrupted.exiting = stopRunningFiles().finally(() => process.exit(128 + constants.signals[signal]))
  })
}
const results: FileResult[] = []
// What each process (a file's, a group's) used: the run's CPU, a group's once however its files ended.
const processCpu: number[] = []
let childId = 0
function report (result: FileResult, how = ''): void {
  results.push(result)
  const failed = isFailed(result)
  console.log(`${failed ? 'not ok' : 'ok'} ${results.length}/${total} - ${result.file} # ${seconds(result.durationMs)}${cpu(result)}${how}, ${result.pass} pass${result.fail > 0 ? `, ${result.fail} fail` : ''}`)
  if (result.leftovers > 0) console.log(`# ${result.file} left ${result.leftovers} process(es) running outside its process group: stopped`)
  if (failed) printFailure(result)
}
async function runAlone (file: string): Promise<void> {
  const result = await runFile(file, { ...config, nodeArgs: preloadsFor([file], config.root, config.nodeArgs), timeoutMs, childId: ++childId, tempFolder })
  if (result.cpuSeconds !== null) processCpu.push(result.cpuSeconds)
  report(result)
}
async function worker (): Promise<void> {
  for (let files = queue.shift(); files !== undefined; files = queue.shift()) {
    const [only] = files
    if (files.length === 1 && only !== undefined) {
      await runAlone(only)
      continue
    }
    const group = await runGroup(files, { ...config, nodeArgs: preloadsFor(files, config.root, config.nodeArgs), timeoutMs, childId: ++childId, tempFolder })
    if (group.result.cpuSeconds !== null) processCpu.push(group.result.cpuSeconds)
    if (group.whole) {
      for (const part of group.parts) report(part, ' in a shared process')
      console.log(`# those ${files.length} shared one process: ${seconds(group.result.durationMs)}${cpu(group.result)}`)
      continue
    }
    // One file's failure, crash or hang may have hidden or spoilt another's results: none of the
    // group's count, each file's own process says.
    console.log(`# ${files.length} files that shared a process failed as a group (${group.result.problem ?? 'a failing test'}): each is run again in a process of its own, and those results count`)
    for (const part of group.parts) {
      if (part.failures.length > 0) console.log(`# in the group, ${part.file}:\n${part.failures.join('\n')}`)
    }
    printFailure({ ...group.result, file: `the group (${files.join(', ')})` })
    for (const file of files) {
      if (interrupted.exiting !== null) break
      await runAlone(file)
    }
  }
}
for (const { file, breaks } of sharing.refused) {
  report({ file, pass: 0, fail: 0, skip: 0, todo: 0, failures: [], problem: `its first line says it may share a process, but it ${breaks.join('; ')} (shared-process.ts)`, leftovers: 0, stderrTail: '', durationMs: 0, cpuSeconds: null })
}
await Promise.all(Array.from({ length: Math.min(jobs, total) }, worker))
// A stopped run neither records its files' durations nor sums them up: it exits as it stops.
if (interrupted.exiting !== null) await interrupted.exiting
const besideResult = beside === null ? null : await beside
if (besideResult !== null) {
  console.log(`# ${besideResult.file}, beside: ${besideResult.problem === null ? 'ok' : 'failed'} (${seconds(besideResult.durationMs)})`)
  if (besideResult.problem !== null) printFailure(besideResult)
}

const measured: Durations = Object.fromEntries(results.map(result => [result.file, Math.round(result.durationMs)]))
writeDurations(config.root, durations, measured)

const failedFiles = [...results, ...(besideResult === null ? [] : [besideResult])].filter(isFailed)
const sum = (key: 'pass' | 'fail' | 'skip' | 'todo'): number => results.reduce((n, result) => n + result[key], 0)
// A file that failed without a failing assertion (a crash, a timeout) counts as one failure.
const fail = sum('fail') + failedFiles.filter(result => result.fail === 0).length
const pass = sum('pass')
const skip = sum('skip')
const todo = sum('todo')
if (failedFiles.length > 0) {
  console.log(`\n# ${failedFiles.length} file(s) failed:`)
  for (const result of failedFiles) console.log(`#   ${result.file}${result.problem === null ? '' : ` (${result.problem})`}`)
}
console.log(`# { total: ${pass + fail + skip + todo}, pass: ${pass}, fail: ${fail}, skip: ${skip}, todo: ${todo} }`)
console.log(`# time=${Math.round(performance.now() - started)}ms`)
// The files' CPU (user + sys, their processes' children included: reaped-cpu.ts), the runner's own
// beside it: the suite is CPU-bound, and wall time on a shared machine says little.
if (processCpu.length > 0) {
  const own = process.cpuUsage()
  console.log(`# cpu=${processCpu.reduce((n, seconds) => n + seconds, 0).toFixed(1)}s (the runner's own ${((own.user + own.system) / 1e6).toFixed(1)}s)`)
}
process.exitCode = fail > 0 ? 1 : 0
