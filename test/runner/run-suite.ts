// `npm test`'s runner (docs/development.md, "The suite"): every compiled test file, or the ones
// named (`npm test -- test/e2e/server.test.ts`), each as a plain node process with .taprc's
// preloads, a few at a time, the longest first. tap stays the test files' library; its runner,
// which adds coverage hooks and source-map support to every process a test starts, is
// `npm run test:coverage`. Ends with tap's summary line (`# { total: N, pass: N, fail: N, ... }`,
// read by .ci/run) and a non-zero exit code when anything failed.
//   node dist/test/runner/run-suite.js [--jobs=N] [--timeout=SECONDS] [--beside-fd=FD] [file or folder ...]
import { readDurations, writeDurations, longestFirst, type Durations } from './durations.js'
import { constants } from 'node:os'
import { besideOutcome } from './beside-script.js'
import { runFile, stopRunningFiles, type FileResult } from './run-file.js'
import { loadSuiteConfig } from './suite-config.js'
import { makeTempFolder, removeTempFolder } from './temp-folder.js'
import { selectTestFiles } from './test-files.js'

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`
const cpu = (result: FileResult): string => result.cpuSeconds === null ? '' : `, ${result.cpuSeconds.toFixed(1)} s CPU`

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
// read from that fd and counted as one of the files. Taken out of argv first: tap's config reads
// argv too, and knows no such option.
const besideArg = process.argv.find(arg => arg.startsWith('--beside-fd='))
if (besideArg !== undefined) process.argv.splice(process.argv.indexOf(besideArg), 1)
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
const queue = longestFirst(selectTestFiles(config.root, args.filter(arg => !arg.startsWith('--'))), durations)
const total = queue.length
if (total === 0) throw new Error('no test files to run')
console.log(`# ${total} test file(s), ${Math.min(jobs, total)} at a time (plain node, no coverage: npm run test:coverage for that)`)

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
let childId = 0
async function worker (): Promise<void> {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const result = await runFile(file, { ...config, timeoutMs, childId: ++childId, tempFolder })
    results.push(result)
    const failed = result.fail > 0 || result.problem !== null
    console.log(`${failed ? 'not ok' : 'ok'} ${results.length}/${total} - ${file} # ${seconds(result.durationMs)}${cpu(result)}, ${result.pass} pass${result.fail > 0 ? `, ${result.fail} fail` : ''}`)
    if (result.leftovers > 0) console.log(`# ${file} left ${result.leftovers} process(es) running outside its process group: stopped`)
    if (failed) printFailure(result)
  }
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

const failedFiles = [...results, ...(besideResult === null ? [] : [besideResult])].filter(result => result.fail > 0 || result.problem !== null)
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
const counted = results.filter(result => result.cpuSeconds !== null)
if (counted.length > 0) {
  const own = process.cpuUsage()
  console.log(`# cpu=${counted.reduce((n, result) => n + (result.cpuSeconds ?? 0), 0).toFixed(1)}s (the runner's own ${((own.user + own.system) / 1e6).toFixed(1)}s)`)
}
process.exitCode = fail > 0 ? 1 : 0
