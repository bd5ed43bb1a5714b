// Runs one test file as a plain node process (tap is the test files' library, not their runner
// here: no coverage hooks, no source-map support, no loader thread) and reads its TAP with tap's own
// parser. The file gets its own process group: servers, PostgreSQL clusters and browsers it starts
// are killed with it when it times out, and whatever it leaves behind is killed when it ends.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Parser, type FinalResults, type Result } from 'tap-parser'
import { cpuOfEnded } from './reaped-cpu.js'
import { LEFTOVER_MARK, stopLeftovers } from './leftovers.js'
import { boundaryFile, isGroupLine, type GroupFileStats } from './group-boundary.js'
import { fileURLToPath } from 'node:url'

export interface FileResult {
  file: string
  pass: number
  fail: number
  skip: number
  todo: number
  /** The failing assertions, as TAP with their YAML diagnostics. */
  failures: string[]
  /** Why the file failed beside its assertions (an exit code, no plan, a timeout), or null. */
  problem: string | null
  /** How many processes it left running outside its process group (stopped by the runner). */
  leftovers: number
  /** The end of the file's stderr (kept for a failing file). */
  stderrTail: string
  durationMs: number
  /** CPU seconds (user + sys) of the file's process and the processes it waited for, or null without /proc. */
  cpuSeconds: number | null
}

export interface RunOptions {
  root: string
  nodeArgs: string[]
  timeoutMs: number
  /** Told to the file as TAP_CHILD_ID, as tap's runner does (1, 2, ...). */
  childId: number
  /** The file's TMPDIR (temp-folder.ts), or null for the runner's own. */
  tempFolder: string | null
}

const STDERR_TAIL = 8 * 1024
/** After the timeout, how long tap's own SIGALRM handler has to print what was still running. */
const KILL_GRACE_MS = 5_000
/** After the file exits, how long its output may take to end. */
const OUTPUT_GRACE_MS = 10_000

/**
 * The files running now, by their leftover mark (their process group's id beside it): what a run
 * stopped midway (run-suite.ts, on SIGINT or SIGTERM) has to stop. A file stays here until what it
 * left behind is stopped.
 */
const running = new Map<string, number | undefined>()

/** Stops every file running now: its process group at once, then what it left outside the group. */
export async function stopRunningFiles (): Promise<void> {
  const files = [...running]
  for (const [, pgid] of files) if (pgid !== undefined) killGroup(pgid, 'SIGKILL')
  await Promise.all(files.map(async ([mark]) => await stopLeftovers(mark)))
}

/** Signals a process group, if it still has a member. */
function killGroup (pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

function failureText (result: Result): string {
  const [first = '', ...rest] = Parser.stringify([['assert', result]]).split('\n')
  // The assertion's full name (its subtests' names before its own), where tap's line has only its own.
  return [first.replace(/^(not ok \d+)( - .*)?$/, `$1 - ${result.fullname}`), ...rest].join('\n').trimEnd()
}

const emptyResult = (file: string): FileResult => ({ file, pass: 0, fail: 0, skip: 0, todo: 0, failures: [], problem: null, leftovers: 0, stderrTail: '', durationMs: 0, cpuSeconds: null })

export async function runFile (file: string, options: RunOptions): Promise<FileResult> {
  return (await runProcess(file, [file], [], options)).result
}

export interface GroupResult {
  /** The group's process: its problem, failures and stderr, its CPU. */
  result: FileResult
  /** Each file's results, in the group's order: counted only when the group is whole (`whole`). */
  parts: FileResult[]
  /** Whether the process passed and every file's results ended at its boundary, in order. */
  whole: boolean
}

/** Runs files that may share a process (shared-process.ts) in one (group-process.ts). */
export async function runGroup (files: string[], options: RunOptions): Promise<GroupResult> {
  const label = `a group of ${files.length} files`
  const { result, parts, boundaries } = await runProcess(label, [GROUP_PROCESS, ...files], files, options)
  // A result after the last boundary is no file's: an assertion made once the file's tests had ended.
  const whole = result.problem === null && result.pass + result.fail + result.skip + result.todo === 0 && parts.every(part => part.fail === 0) &&
    boundaries.length === files.length && boundaries.every((file, i) => file === files[i])
  return { result, parts, whole }
}

const GROUP_PROCESS = fileURLToPath(new URL('group-process.js', import.meta.url))

/**
 * Runs a node process on `args` (a file, or the group process and its files) and reads its TAP. With
 * `groupFiles`, the results up to each file's boundary are that file's (group-boundary.ts).
 */
async function runProcess (label: string, args: string[], groupFiles: string[], options: RunOptions): Promise<{ result: FileResult, parts: FileResult[], boundaries: string[] }> {
  const started = performance.now()
  const result = emptyResult(label)
  const parts = groupFiles.map(emptyResult)
  const boundaries: string[] = []
  // Where a result counts: the file whose boundary has not passed yet, or the process's own result.
  const counted = (): FileResult => parts[boundaries.length] ?? result
  const parser = new Parser()
  // Root-level lines only (a subtest's lines are its own parser's): a boundary moves to the next file.
  parser.on('assert', (assert: Result) => {
    const file = boundaryFile(assert.name)
    if (file !== null) boundaries.push(file)
  })
  const own = (assert: Result): boolean => isGroupLine(assert.name, groupFiles)
  parser.on('pass', (assert: Result) => { if (!own(assert)) counted().pass++ })
  parser.on('skip', (assert: Result) => { if (!own(assert)) counted().skip++ })
  parser.on('todo', (assert: Result) => { if (!own(assert)) counted().todo++ })
  parser.on('fail', (assert: Result) => {
    const into = own(assert) ? result : counted()
    into.fail++
    into.failures.push(failureText(assert))
  })
  const parsed = new Promise<FinalResults>(resolve => parser.on('complete', resolve))

  const mark = `${process.pid}:${options.childId}`
  const childKey = randomBytes(8).toString('hex')
  const child = spawn(process.execPath, [...options.nodeArgs, ...args], {
    cwd: options.root,
    // tap's runner tells a file these (tap's config values are in process.env: loadSuiteConfig).
    env: { ...process.env, TAP: '1', TAP_CHILD_ID: String(options.childId), TAP_CHILD_KEY: childKey, TAP_BAIL: '0', TAP_CWD: options.root, [LEFTOVER_MARK]: mark, ...(options.tempFolder === null ? {} : { TMPDIR: options.tempFolder }) },
    // fd 3, as tap's runner opens it: a file's t.setTimeout(n) is sent back on it (tap unrefs it in the file).
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true // a process group of its own
  })
  running.set(mark, child.pid)
  const { stdout, stderr: errors } = child
  if (stdout === null || errors === null) throw new Error('spawn gave no output pipes')
  stdout.pipe(parser)
  let stderr = ''
  errors.setEncoding('utf8')
  errors.on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-STDERR_TAIL) })

  let timedOut = false
  let killer: NodeJS.Timeout | undefined
  const expire = (): void => {
    timedOut = true
    // tap's handler prints the subtests and handles still open, then the whole group goes.
    if (child.pid !== undefined) killGroup(child.pid, 'SIGALRM')
    killer = setTimeout(() => { if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL') }, KILL_GRACE_MS)
  }
  let limitMs = options.timeoutMs
  let timer: NodeJS.Timeout | undefined = setTimeout(expire, limitMs)
  // A file's t.setTimeout(n) sets its time from now on, as tap's runner honours it (0: none).
  child.on('message', (message: { key?: unknown, child?: unknown, setTimeout?: unknown } & Partial<GroupFileStats>) => {
    const part = parts.find(part => part.file === message?.groupFile)
    if (part !== undefined) {
      part.cpuSeconds = message.cpuSeconds ?? null
      part.durationMs = message.durationMs ?? 0
      return
    }
    if (message?.key !== childKey || message.child !== String(options.childId) || typeof message.setTimeout !== 'number' || timedOut) return
    clearTimeout(timer)
    limitMs = message.setTimeout
    timer = limitMs > 0 ? setTimeout(expire, limitMs) : undefined
  })

  const exit = await new Promise<{ code: number | null, signal: NodeJS.Signals | null, error?: Error }>(resolve => {
    child.on('error', error => { resolve({ code: null, signal: null, error }) })
    child.on('exit', (code, signal) => {
      result.cpuSeconds = cpuOfEnded()
      // What the file started and left behind in its group (a server, a browser) goes with it; its
      // output pipes then close.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL')
      resolve({ code, signal })
    })
  })
  clearTimeout(timer)
  clearTimeout(killer)
  // A process outside the group (started in a session of its own) may still hold the file's stdout:
  // its TAP is what was written until the file exited.
  const unheld = setTimeout(() => { stdout.unpipe(parser); stdout.destroy(); parser.end() }, OUTPUT_GRACE_MS)
  const final = await parsed
  clearTimeout(unheld)
  result.leftovers = await stopLeftovers(mark)
  running.delete(mark)
  result.durationMs = performance.now() - started
  result.stderrTail = stderr

  // tap's own timer (TAP_TIMEOUT, or a root t.setTimeout: a group sets one for each file, and tells
  // us a moment later) may run out just before ours: its handler ends the process by SIGALRM, as
  // ours would have had it (a group's file that hung was reported as 'killed by SIGALRM' so, 29 Nov).
  if (timedOut || exit.signal === 'SIGALRM') result.problem = `timed out after ${limitMs / 1000} s: killed with its process group`
  else if (exit.error !== undefined) result.problem = `could not start: ${exit.error.message}`
  else if (exit.signal !== null) result.problem = `killed by ${exit.signal}`
  else if (exit.code !== 0) result.problem = `exited with code ${String(exit.code)}`
  else if (final.plan.end === null || (final.count === 0 && !final.plan.skipAll)) result.problem = 'no plan: the file ended before its tests did'
  else if (!final.ok && result.fail === 0 && parts.every(part => part.fail === 0)) result.problem = 'its TAP was not ok (a plan not met, or a bail out)'
  return { result, parts, boundaries }
}
