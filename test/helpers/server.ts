import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import type { Test } from 'tap'
import { packageRoot } from '../../paths.js'
import { freshDir } from './dirs.js'
import { nodeArgs } from './run.js'
import { START_NODE_OPTIONS } from './start-options.js'

export interface RunningServer {
  /** http://127.0.0.1:<port> */
  address: string
  /** The server's process id (its RSS is read from /proc). */
  pid: number
  /** Everything the server printed so far. */
  log: () => string
  /** Sends a signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/**
 * Starts dist/server.js, with `npm start`'s node options, on a free port with its databases in a new
 * folder of the test's own; killed when the test ends. The port is read from the "Server listening"
 * log line, so LOG_LEVEL stays info. Load shedding is off unless the test sets MAX_EVENT_LOOP_DELAY:
 * beside CI's CPU hog, with three test files at a time, a loop stalled for a second (a slow start,
 * a 1 MiB body) would answer a test's next requests 503 (test/plugins/load-shedding.test.ts is
 * about shedding; test/helpers/app.ts turns it off for the same reason). `preloads`: node options
 * before the entry point (`--import=...`), as a user adds an instrumentation.
 */
export { UNCOVERED } from './coverage.js'

export async function startServer (t: Test, env: Record<string, string> = {}, preloads: string[] = [], { coverage = true } = {}): Promise<RunningServer> {
  if (env.LOG_LEVEL !== undefined) throw new Error('startServer reads the port from the info log: do not set LOG_LEVEL')
  const dir = freshDir(t, 'server-')
  // As `npm start` runs it, unless the test chooses the heap itself (NODE_OPTIONS).
  const options = env.NODE_OPTIONS === undefined ? START_NODE_OPTIONS : []
  const command = [process.execPath, ...nodeArgs, ...options, ...preloads, join(packageRoot, 'dist', 'server.js')]
  // tap adds its coverage hooks to every node process a test starts (NODE_OPTIONS, whatever `env`
  // says): without coverage the server is started through env(1), which drops them (UNCOVERED).
  const [file = '', ...args] = coverage ? command : ['env', '-u', 'NODE_OPTIONS', ...command]
  const child: ChildProcessWithoutNullStreams = spawn(file, args, {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      MAX_EVENT_LOOP_DELAY: '0ms',
      ...(env.DATABASE_URL === undefined ? { DATABASE_PATH: join(dir, 'var', 'app.sqlite') } : {}),
      ...(env.PROFILER_DATABASE_URL === undefined ? { PROFILER_DATABASE_PATH: join(dir, 'var', 'profiler.sqlite') } : {}),
      ...env
    }
  })
  let log = ''
  child.stderr.on('data', chunk => { log += String(chunk) })
  let exited = false
  child.on('exit', () => { exited = true })
  t.teardown(() => { if (!exited) child.kill('SIGKILL') })
  const address = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', chunk => {
      log += String(chunk)
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
      if (match?.[1] !== undefined) resolve(match[1])
    })
    child.on('exit', code => reject(new Error(`server exited early (${code}): ${log}`)))
  })
  return {
    address,
    pid: child.pid ?? 0,
    log: () => log,
    stop: async (signal = 'SIGTERM') => {
      if (exited) return child.exitCode
      child.kill(signal)
      const [code] = await once(child, 'exit') as [number | null]
      return code
    }
  }
}
