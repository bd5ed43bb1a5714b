// Runs one test file as a plain node process (tap is the test files' library, not their runner
// here: no coverage hooks, no source-map support, no loader thread) and reads its TAP with tap's own
// parser. The file gets its own process group: servers, PostgreSQL clusters and browsers it starts
// are killed with it when it times out, and whatever it leaves behind is killed when it ends.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Parser, type FinalResults, type Result } from 'tap-parser'
import { cpuOfEnded } from './reaped-cpu.js'
import { LEFTOVER_MARK, stopLeftovers } from './leftovers.js'

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

export async function runFile (file: string, options: RunOptions): Promise<FileResult> {
  const started = performance.now()
  const result: FileResult = { file, pass: 0, fail: 0, skip: 0, todo: 0, failures: [], problem: null, leftovers: 0, stderrTail: '', durationMs: 0, cpuSeconds: null }
  const parser = new Parser()
  parser.on('pass', () => { result.pass++ })
  parser.on('skip', () => { result.skip++ })
  parser.on('todo', () => { result.todo++ })
  parser.on('fail', (assert: Result) => {
    result.fail++
    result.failures.push(failureText(assert))
  })
  const parsed = new Promise<FinalResults>(resolve => parser.on('complete', resolve))

  const mark = `${process.pid}:${options.childId}`
  const childKey = randomBytes(8).toString('hex')
  const child = spawn(process.execPath, [...options.nodeArgs, file], {
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
  child.on('message', (message: { key?: unknown, child?: unknown, setTimeout?: unknown }) => {
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

  if (timedOut) result.problem = `timed out after ${limitMs / 1000} s: killed with its process group`
  else if (exit.error !== undefined) result.problem = `could not start: ${exit.error.message}`
  else if (exit.signal !== null) result.problem = `killed by ${exit.signal}`
  else if (exit.code !== 0) result.problem = `exited with code ${String(exit.code)}`
  else if (final.plan.end === null || (final.count === 0 && !final.plan.skipAll)) result.problem = 'no plan: the file ended before its tests did'
  else if (!final.ok && result.fail === 0) result.problem = 'its TAP was not ok (a plan not met, or a bail out)'
  return result
}
