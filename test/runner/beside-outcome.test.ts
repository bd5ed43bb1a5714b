// npm test's lint runs beside the build (test/npm-test.mjs) and hands its outcome to the runner on
// fd 3 (--beside-fd=3, beside-script.ts): a real runner process, on one passing file, told that
// the command beside it passed, failed, or ended without saying: the run's summary line (the one
// .ci/run reads) and its exit code must say so.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../../paths.js'

/** The runner's output and exit code, the outcome written on its fd 3 (null: the pipe closed with nothing on it). */
async function runBeside (outcome: Record<string, unknown> | null): Promise<{ output: string, code: number | null }> {
  const runner = spawn(process.execPath, [join(packageRoot, 'dist', 'test', 'runner', 'run-suite.js'), '--beside-fd=3', 'dist/test/runner/fixtures/group-pass-a.js'], {
    cwd: packageRoot,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe']
  })
  let output = ''
  runner.stdout?.on('data', chunk => { output += String(chunk) })
  runner.stderr?.on('data', chunk => { output += String(chunk) })
  const ended = once(runner, 'exit') as Promise<[number | null]>
  const pipe = runner.stdio[3] as NodeJS.WritableStream
  pipe.end(outcome === null ? '' : JSON.stringify(outcome))
  const [code] = await ended
  return { output, code }
}

t.test('the command beside passed: the run passes, its line says ok', async t => {
  const { output, code } = await runBeside({ name: 'npm run lint', problem: null, output: '', durationMs: 1200 })
  t.equal(code, 0, output)
  t.match(output, '# npm run lint, beside: ok')
  t.match(output, /# \{ total: 4, pass: 4, fail: 0, /)
})

t.test('the command beside failed: one failure in the summary, its output shown, exit 1', async t => {
  const { output, code } = await runBeside({ name: 'npm run lint', problem: 'exited with code 1', output: 'plugins/x.ts: unused export y', durationMs: 900 })
  t.equal(code, 1, output)
  t.match(output, '# npm run lint, beside: failed')
  t.match(output, 'plugins/x.ts: unused export y')
  t.match(output, /# \{ total: 5, pass: 4, fail: 1, /)
})

t.test('nothing handed over: a failure, not a pass', async t => {
  const { output, code } = await runBeside(null)
  t.equal(code, 1, output)
  t.match(output, 'no outcome handed over')
  t.match(output, /# \{ total: 5, pass: 4, fail: 1, /)
})
