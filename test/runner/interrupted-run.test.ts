// npm test's runner stopped midway (Ctrl-C's SIGINT, or SIGTERM): the files running are stopped with
// what they started, in their process group or outside it, and the run's temp folder in /dev/shm
// is removed, as at a run's end. A real runner process, on a file that never ends.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../../paths.js'
import { waitFor } from '../helpers/wait-for.js'
import { tmpfsHasRoom } from './temp-folder.js'

/** Whether a process still runs (a zombie waiting for its parent to read its end does not). */
function running (pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`${signal}: the running file and its processes stopped, the temp folder gone`, async t => {
    const report = join(t.testdir(), 'held.json')
    // Without a tmpfs with room the runner makes no folder of its own: the file has the usual one.
    const ownFolder = tmpfsHasRoom()
    const runner = spawn(process.execPath, [join(packageRoot, 'dist', 'test', 'runner', 'run-suite.js'), 'dist/test/runner/fixtures/held-file.js'], {
      cwd: packageRoot,
      env: { ...process.env, HELD_FILE_REPORT: report },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    runner.stdout.on('data', chunk => { output += String(chunk) })
    runner.stderr.on('data', chunk => { output += String(chunk) })
    t.teardown(() => { if (runner.exitCode === null && runner.signalCode === null) runner.kill('SIGKILL') })
    const ended = once(runner, 'exit') as Promise<[number | null, NodeJS.Signals | null]>

    await waitFor(() => existsSync(report) && readFileSync(report, 'utf8') !== '', { timeoutMs: 60_000, what: `the held file's report (runner's output: ${output})` })
    const held = JSON.parse(readFileSync(report, 'utf8')) as { tempFolder: string, pids: number[] }
    // What a runner that failed to stop them left (killed here, not by a runner: the file's mark is the inner runner's).
    t.teardown(() => {
      for (const pid of held.pids.filter(running)) process.kill(pid, 'SIGKILL')
      if (ownFolder) rmSync(held.tempFolder, { recursive: true, force: true })
    })
    if (ownFolder) t.match(held.tempFolder, /^\/dev\/shm\/run-suite-/, 'the file ran in the run\'s temp folder')
    t.ok(existsSync(join(held.tempFolder, 'held')), 'which held its file')
    t.ok(held.pids.every(running), 'the file, a process in its group and one in a session of its own run')

    runner.kill(signal)
    const [code] = await ended
    t.equal(code, 128 + (signal === 'SIGTERM' ? 15 : 2), 'the runner exits as the signal would have it')
    t.match(output, `# ${signal}: stopping the file(s) still running`)
    if (ownFolder) t.notOk(existsSync(held.tempFolder), 'the temp folder is gone')
    t.same(held.pids.filter(running), [], 'no process of the file runs')
  })
}
