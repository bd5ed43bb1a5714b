// Files that share a process (shared-process.ts, groups.ts, group-process.ts): a real runner on the
// fixtures in test/runner/fixtures. Each file's line says its own results, whether its group passed
// or one of its files failed, crashed or hung; a file that says it may share a process and breaks
// the check fails.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../../paths.js'
import { sharingBreaks, SHARES_A_PROCESS } from './shared-process.js'

const fixture = (name: string): string => `dist/test/runner/fixtures/group-${name}.js`

interface FileLine { ok: boolean, pass: number, fail: number, shared: boolean }

/** A real runner on `files`: its exit code, its output, and each file's line. */
async function runSuite (args: string[]): Promise<{ code: number | null, output: string, files: Map<string, FileLine> }> {
  const runner = spawn(process.execPath, [join(packageRoot, 'dist', 'test', 'runner', 'run-suite.js'), ...args], { cwd: packageRoot, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  runner.stdout.on('data', chunk => { output += String(chunk) })
  runner.stderr.on('data', chunk => { output += String(chunk) })
  const [code] = await once(runner, 'close') as [number | null]
  const files = new Map<string, FileLine>()
  for (const [, ok, file = '', how = '', pass, fail] of output.matchAll(/^(ok|not ok) \d+\/\d+ - (\S+) # ([^\n]*?), (\d+) pass(?:, (\d+) fail)?$/gm)) {
    files.set(file, { ok: ok === 'ok', pass: Number(pass), fail: Number(fail ?? 0), shared: how.endsWith('in a shared process') })
  }
  return { code, output, files }
}

const summary = (output: string): string | undefined => /^# \{ total: .* \}$/m.exec(output)?.[0]

t.test('the check finds what sharing a process would break', async t => {
  t.same(sharingBreaks(`${SHARES_A_PROCESS}\nimport t from 'tap';\nt.test('x', async (t) => {\n    t.plan(1);\n    t.teardown(() => {});\n});\n`), [], 'a subtest\'s plan and teardown are its own')
  t.same(sharingBreaks('t.plan(2);\n'), ['sets something on tap\'s root (plan, hooks, end)'])
  t.same(sharingBreaks('t.jobs = 2;\n'), [], 'its jobs: a group runs a file\'s tests one at a time')
  t.same(sharingBreaks('t.before(async () => {});\n'), ['sets something on tap\'s root (plan, hooks, end)'])
  t.same(sharingBreaks('t.setTimeout(300000);\n'), [], 'its time: a group sets each file\'s at its start')
  t.same(sharingBreaks('    process.env.PORT = \'1\';\n'), ['writes the environment'])
  t.same(sharingBreaks('if (process.env.PORT === \'1\') {}\n'), [], 'reading the environment is fine')
  t.same(sharingBreaks('process.once(\'exit\', () => {});\n'), ['listens on the process or ends it'])
  t.same(sharingBreaks('    await app.listen({ port: 0 });\n'), ['listens on a port'])
  t.same(sharingBreaks('    const { app, address } = await listeningApp(t);\n'), [], 'an app listening until its test ends')
  t.same(sharingBreaks('    const { app } = await listeningApp(t);\n    await app.server.listen(0);\n'), ['listens on a port'], 'a server of its own beside it')
  t.same(sharingBreaks('import { otlpReceiver } from \'../helpers/otlp-receiver.js\';\nimport { webhookReceiver } from \'../helpers/webhook-receiver.js\';\n'), [], 'receivers closed when their test ends')
  t.same(sharingBreaks('    const workers = startedWorkers(t);\n'), [], 'a listener for workers removed when its test ends')
  t.same(sharingBreaks('import tap from \'tap\';\ntap.plan(1);\n'), ['imports tap\'s root under another name than t'], 'tap\'s root under another name')
  t.same(sharingBreaks('import t, { type Test } from \'tap\';\n'), [])
  t.same(sharingBreaks('import { spawn } from \'node:child_process\';\n'), ['starts a child process'])
  t.same(sharingBreaks('import { execFileSync } from \'node:child_process\';\n'), [], 'a child run to its end, synchronously')
  t.same(sharingBreaks('import { execFileSync, spawn } from \'node:child_process\';\n'), ['starts a child process'], 'beside one that may be left running')
  t.same(sharingBreaks('import * as cp from \'child_process\';\n'), ['starts a child process'])
  t.same(sharingBreaks('const cp = await import(\'node:child_process\');\n'), ['starts a child process'])
  t.same(sharingBreaks('import { profilerBin } from \'../helpers/profiler-cli.js\';\n'), [], 'the command line run to its end')
  t.same(sharingBreaks('import { startServer } from \'../helpers/server.js\';\n'), [], 'a server killed when the test given ends')
  t.same(sharingBreaks('import { CLI } from \'../helpers/profiler-cli.js\';\nimport { spawnNode } from \'../helpers/run.js\';\nconst child = spawnNode(CLI, [\'tail\'], {});\n'), ['starts a child process'], 'the command line started and left running')
  t.same(sharingBreaks('import { runNode } from \'../helpers/run.js\';\nconst { code } = await runNode(CLI, [], {});\n'), [], 'a node process run to its end')
  t.same(sharingBreaks('import { startPostgres } from \'../helpers/postgres.js\';\nconst cluster = await startPostgres(t);\n'), [], 'a cluster removed by a teardown of the root: done when the file ends')
})

t.test('one file alone runs in its own process, its counts as in a group', async t => {
  // group-pass-b's line alone (2 pass, not shared) is the failing group's test's, run again alone.
  t.same((await runSuite([fixture('pass-a')])).files.get(fixture('pass-a')), { ok: true, pass: 4, fail: 0, shared: false })
})

// One runner and one group for what passing groups must do (a runner and its group process are
// ~0.6 s of CPU; this was four runs): each file's line, counts as when it runs alone; a teardown
// a file hands tap's root done when that file ends, before the next file's tests; a file that sets
// tap's root to run its tests side by side has them run one at a time, each result its own; the
// time limit each file's (two files of 3 s under a limit of 5 s), or the one a file's root gives it.
t.test('a group that passes: each file\'s line, its own teardowns, jobs and time limit', async t => {
  const names = ['pass-a', 'pass-b', 'teardown-a', 'teardown-b', 'jobs', 'slow-a', 'slow-b', 'own-timeout']
  const { code, output, files } = await runSuite(['--timeout=5', ...names.map(fixture)])
  t.equal(code, 0, output)
  t.match(output, /^# those 8 shared one process: /m, 'one group')
  const passes: Record<string, number> = { 'pass-a': 4, 'pass-b': 2, 'teardown-a': 1, 'teardown-b': 1, jobs: 3, 'slow-a': 1, 'slow-b': 1, 'own-timeout': 1 }
  for (const name of names) t.same(files.get(fixture(name)), { ok: true, pass: passes[name], fail: 0, shared: true }, name)
  t.equal(summary(output), '# { total: 14, pass: 14, fail: 0, skip: 0, todo: 0 }')
})

t.test('a group with a failing and a crashing file: every file run again alone, each result its own', async t => {
  const { code, output, files } = await runSuite([fixture('pass-a'), fixture('fail'), fixture('crash'), fixture('pass-b'), fixture('refused')])
  t.equal(code, 1)
  t.match(output, /^# 4 files that shared a process failed as a group \([^)]+\): each is run again in a process of its own, and those results count$/m)
  t.same(files.get(fixture('pass-a')), { ok: true, pass: 4, fail: 0, shared: false })
  t.same(files.get(fixture('pass-b')), { ok: true, pass: 2, fail: 0, shared: false })
  t.same(files.get(fixture('fail')), { ok: false, pass: 1, fail: 1, shared: false })
  t.same(files.get(fixture('crash')), { ok: false, pass: 1, fail: 0, shared: false })
  t.match(output, `# ${fixture('fail')}: failed (exited with code 1)\nnot ok 2 - a test that fails > one is two`, 'the failure names its file and test')
  t.match(output, `# ${fixture('crash')}: failed (killed by SIGKILL)`)
  t.same(files.get(fixture('refused')), { ok: false, pass: 0, fail: 0, shared: false })
  t.match(output, `# ${fixture('refused')}: failed (its first line says it may share a process, but it writes the environment (shared-process.ts))`)
  t.equal(summary(output), '# { total: 11, pass: 8, fail: 3, skip: 0, todo: 0 }', 'the failing assertion, the crash and the refused file: one failure each')
})

t.test('a group with a file that hangs: the group times out, its files run again alone', async t => {
  const { code, output, files } = await runSuite(['--timeout=5', fixture('pass-a'), fixture('hang'), fixture('pass-b')])
  t.equal(code, 1)
  t.match(output, /^# 3 files that shared a process failed as a group \(timed out after 5 s: killed with its process group\)/m)
  t.same(files.get(fixture('pass-a')), { ok: true, pass: 4, fail: 0, shared: false })
  t.same(files.get(fixture('pass-b')), { ok: true, pass: 2, fail: 0, shared: false })
  t.same(files.get(fixture('hang')), { ok: false, pass: 1, fail: 1, shared: false })
  t.match(output, `# ${fixture('hang')}: failed (timed out after 5 s: killed with its process group)\nnot ok 2 - a test that never ends > timeout!`)
})
