// Which test files may share a node process with others (docs/development.md, "Files that share a
// process"): a file says so on its first line, and the runner checks, on the compiled file, that it
// does nothing sharing would break. A file that says so and fails the check is a failing file.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

/** The first line of a test file that may share a process. */
export const SHARES_A_PROCESS = '// run-suite: shares a process'

/**
 * What a shared process would break, each with the pattern that finds it in a compiled file. Tap's
 * root (`t` at the start of a line: tsc keeps the source's indentation) is every file's in a shared
 * process; the environment, the process's listeners and exit code, global slots, servers and child
 * processes outlive one file's tests or change the next file's.
 */
const BREAKS: Array<[string, RegExp]> = [
  // The patterns below know tap's root as `t`.
  ['imports tap\'s root under another name than t', /import\s+(?!t\b)[\w$]+(\s*,\s*\{[^}]*\})?\s+from\s+['"]tap['"]/],
  // A file's t.jobs is fine: the group process runs its tests one at a time, as any file's. So is
  // its root t.setTimeout: the group process sets .taprc's time at each file's start, and a file's
  // own call then gives it its time from there (tap's timer and the runner's, told on the channel),
  // as alone; the next file's start sets .taprc's again.
  ['sets something on tap\'s root (plan, hooks, end)', /^(await\s+)?t\.(plan|before|beforeEach|after|afterEach|teardown|autoend|end|bailout)\b/m],
  ['starts a timer at the root', /^(await\s+)?(setTimeout|setInterval|setImmediate)\(/m],
  ['writes the environment', /process\.env(\.\w+|\[[^\]]*\])\s*(=(?!=)|\+=|\?\?=|\|\|=)|delete\s+process\.env|Object\.assign\(process\.env/],
  ['listens on the process or ends it', /process\.(on|once|addListener|prependListener|prependOnceListener|exit|chdir|umask|setUncaughtExceptionCaptureCallback)\(|process\.exitCode\s*=/],
  ['writes a global', /globalThis(\.\w+|\[[^\]]*\])\s*=(?!=)/],
  // helpers/app.js's listeningApp(t), and the OTLP and webhook receivers of helpers/, close their
  // server when the test given ends (tap's root: when the file ends, in a group too): no server
  // outlives it. helpers/started-workers.js's listener on the process goes the same way.
  ['listens on a port', /\.listen\(/],
  // helpers/profiler-cli.js starts the command line only to run it to its end (profilerBin resolves
  // once the child has exited and its output closed): nothing it starts outlives the file's test.
  // Nor does a child_process import of synchronous calls only (execFileSync: run to its end), nor
  // helpers/server.js's startServer(t), whose server is killed when the test given ends (tap's
  // root: when the file ends, in a group too), nor helpers/run.js's runNode (run to its end); its
  // spawnNode is left running.
  ['starts a child process', /import\s+(?!\{(\s*\w+Sync(\s+as\s+[\w$]+)?\s*,?)+\s*\}\s*from)[^;]*?['"](node:)?child_process['"]|(require|import)\(\s*['"](node:)?child_process['"]|\bspawnNode\(/]
  // PostgreSQL is fine: a cluster (helpers/postgres.js) is removed by a teardown of the test given,
  // and the group process does tap's root's teardowns when the file that handed them ends.
]

/** Whether a compiled test file's first line says it may share a process. */
function sharesAProcess (source: string): boolean {
  return source.startsWith(SHARES_A_PROCESS)
}

/** What in a compiled test file sharing a process would break (empty: nothing found). */
export function sharingBreaks (source: string): string[] {
  return BREAKS.filter(([, pattern]) => pattern.test(source)).map(([what]) => what)
}

export interface Sharing {
  /** The files that say they may share a process and pass the check. */
  shared: string[]
  /** The others, run one per process. */
  alone: string[]
  /** The files that say they may share one but fail the check, with what it found. */
  refused: Array<{ file: string, breaks: string[] }>
}

/** Sorts a run's files (paths relative to root) by whether they may share a process. */
export function sortBySharing (root: string, files: string[]): Sharing {
  const sharing: Sharing = { shared: [], alone: [], refused: [] }
  for (const file of files) {
    const source = readFileSync(resolve(root, file), 'utf8')
    if (!sharesAProcess(source)) sharing.alone.push(file)
    else {
      const breaks = sharingBreaks(source)
      if (breaks.length === 0) sharing.shared.push(file)
      else sharing.refused.push({ file, breaks })
    }
  }
  return sharing
}
