// `npm test` (docs/development.md, "The suite"): the build, tap's build check, then the suite's
// runner, with `npm run lint` (ESLint, knip) run beside the build. tsc is one thread, and so is
// lint: one after the other, as they ran, each left one of the machine's two cores idle (a fresh
// clone: the build 31 s of CPU, lint 27 s). Lint's outcome is handed to the runner on its fd 3
// (run-suite.ts --beside-fd=3, test/runner/beside-script.ts), which counts it as one of the run's
// files: the summary line it ends with stays the whole truth. Arguments go to the runner.
import { spawn } from 'node:child_process'

/** Runs a command with this process's output; resolves with its exit code. */
function run (command, args, stdio = 'inherit') {
  const child = spawn(command, args, { stdio })
  return { child, code: new Promise(resolve => child.on('close', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))) }
}

const lintStarted = performance.now()
// A process group of its own: stopped with it when the build fails or the run is stopped.
const lint = spawn('npm', ['run', 'lint', '--silent'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
let lintOutput = ''
const keep = chunk => { lintOutput = (lintOutput + String(chunk)).slice(-64 * 1024) }
lint.stdout.on('data', keep)
lint.stderr.on('data', keep)
const lintDone = new Promise(resolve => {
  lint.on('error', error => resolve({ code: null, problem: `could not start: ${error.message}` }))
  lint.on('close', code => resolve({ code, problem: code === 0 ? null : `exited with code ${String(code)}` }))
})
const stopLint = () => { try { process.kill(-lint.pid, 'SIGKILL') } catch { /* ended already */ } }
// The runner hears SIGINT from the terminal itself (it is in this process's group); SIGTERM is passed on.
let runner = null
process.on('SIGINT', stopLint)
process.on('SIGTERM', () => { stopLint(); if (runner !== null) runner.kill('SIGTERM'); else process.exit(143) })

for (const [command, args] of [['npm', ['run', 'build:test', '--silent']], [process.execPath, ['dist/test/tap-build.js']]]) {
  const code = await run(command, args).code
  if (code !== 0) {
    stopLint()
    process.exit(code)
  }
}
const suite = run(process.execPath, ['dist/test/runner/run-suite.js', '--beside-fd=3', ...process.argv.slice(2)], ['inherit', 'inherit', 'inherit', 'pipe'])
runner = suite.child
suite.child.stdio[3].on('error', () => {}) // a runner stopped before lint ended reads no outcome
const outcome = await lintDone
suite.child.stdio[3].end(JSON.stringify({ name: 'npm run lint', ...outcome, output: lintOutput, durationMs: performance.now() - lintStarted }))
process.exitCode = await suite.code
