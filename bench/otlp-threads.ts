// Where the OTLP export's CPU goes outside the writer thread (issue 39): the server with the profiler
// on, with and without PROFILER_OTLP_ENDPOINT, in interleaved rounds under the OTLP section's load
// (cpu-otlp.ts: the seed-like mix at a fixed rate, fresh SQLite store, every request kept). Each
// thread's CPU by its name (V8's helper threads, libuv's pool, the writer, the request thread), and
// with --trace-gc each isolate's garbage collections (count and pause ms, by kind).
// With --perf=<dir>, `perf record` of the whole process over the measured load (perf report --sort tid,sym).
//   node dist-bench/bench/otlp-threads.js [rounds=3] [seconds=10] [rate=2000] [--trace-gc] [--cpu-prof=<dir>] [--perf=<dir>]
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runLoad } from './load.js'
import { startOtlpSink } from './otlp-sink.js'
import { startBenchServer } from './server-process.js'
import { sqliteStore, UNBOUNDED_RETENTION_ENV } from './stores.js'

const [roundsArg = '3', secondsArg = '10', rateArg = '2000'] = process.argv.slice(2).filter(arg => !arg.startsWith('--'))
const traceGc = process.argv.includes('--trace-gc')
const cpuProfDir = process.argv.find(arg => arg.startsWith('--cpu-prof='))?.slice('--cpu-prof='.length)
const perfDir = process.argv.find(arg => arg.startsWith('--perf='))?.slice('--perf='.length)
const rounds = Number(roundsArg)
const seconds = Number(secondsArg)
const rate = Number(rateArg)

/** Every thread's CPU ms so far, by thread name (comm), and the main thread's apart. */
function threadCpuByName (pid: number): Map<string, number> {
  const byName = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ms = (Number(fields[11]) + Number(fields[12])) * 10
      const name = tid === String(pid) ? 'request thread' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      byName.set(name, (byName.get(name) ?? 0) + ms)
    } catch {}
  }
  return byName
}

/** --trace-gc lines after `fromLine`: per isolate (named by its heap's size after its last collection), per kind, count and pause ms. */
function gcOf (log: string, fromLine: number): Map<string, { count: number, ms: number }> {
  const heapMb = new Map<string, string>()
  const seen: Array<{ isolate: string, kind: string, pause: number }> = []
  log.split('\n').forEach((line, index) => {
    const match = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: ([A-Za-z-]+)[^,]*-> ([\d.]+) \(([\d.]+)\) MB,(?: pooled: [\d.]+ MB,)? ([\d.]+) \/ ([\d.]+) ms/.exec(line)
    if (match === null) return
    const [, isolate = '', kind = '', , committed = '', pause = '0'] = match
    heapMb.set(isolate, committed)
    // A major collection's reason (what started it) follows the mutator utilisation.
    const reason = kind === 'Mark-Compact' ? ` (${/\) ([^;]*);?\s*(.*)$/.exec(line)?.slice(1).join('; ').trim() ?? '?'})` : ''
    if (index >= fromLine) seen.push({ isolate, kind: `${kind}${reason}`, pause: Number(pause) })
  })
  const out = new Map<string, { count: number, ms: number }>()
  for (const { isolate, kind, pause } of seen) {
    const key = `isolate of ${heapMb.get(isolate) ?? '?'} MB ${kind}`
    const entry = out.get(key) ?? { count: 0, ms: 0 }
    entry.count++
    entry.ms += pause
    out.set(key, entry)
  }
  return out
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-otlp-threads-'))
const store = sqliteStore(dataDir)
const sink = await startOtlpSink()
const modes = { profiler: { PROFILER: 'on', PROFILER_SAMPLE: '1' }, export: { PROFILER: 'on', PROFILER_SAMPLE: '1', PROFILER_OTLP_ENDPOINT: sink.url } }
type Mode = keyof typeof modes
const totals: Record<Mode, Array<Map<string, number>>> = { profiler: [], export: [] }
try {
  for (let round = 0; round < rounds; round++) {
    for (const mode of (round % 2 === 0 ? ['profiler', 'export'] : ['export', 'profiler']) as Mode[]) {
      const runStore = await store.runStore(0)
      const logFile = join(dataDir, `${mode}-${round}.log`)
      const profDir = cpuProfDir === undefined ? undefined : join(cpuProfDir, `${mode}-${round}`)
      if (profDir !== undefined) mkdirSync(profDir, { recursive: true })
      if (perfDir !== undefined) mkdirSync(perfDir, { recursive: true })
      const nodeArgs = [...(traceGc ? ['--trace-gc'] : []), ...(profDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`])]
      const server = await startBenchServer({ ...UNBOUNDED_RETENTION_ENV, LOG_LEVEL: 'silent', ...modes[mode], ...runStore.env, DATABASE_PATH: join(dataDir, 'app.sqlite') }, { logFile, nodeArgs })
      try {
        await runLoad(server.url, 'seed-like', { seconds: 2, rate })
        const logLines = traceGc ? readFileSync(logFile, 'utf8').split('\n').length - 1 : 0
        const before = threadCpuByName(server.pid)
        const perf = perfDir === undefined ? null : spawn('perf', ['record', '-F', '499', '-p', String(server.pid), '-o', join(perfDir, `${mode}-${round}.data`), '--', 'sleep', String(seconds + 1.5)], { stdio: 'ignore' })
        const perfDone = perf === null ? null : new Promise(resolve => perf.once('exit', resolve))
        const load = await runLoad(server.url, 'seed-like', { seconds, rate })
        await new Promise(resolve => setTimeout(resolve, 1500)) // the writer's and the export's last batches
        const after = threadCpuByName(server.pid)
        await perfDone
        // Which thread is which (perf names them by tid): the writer's tid and the others' names.
        if (perfDir !== undefined) process.stdout.write(`  threads: ${readdirSync(`/proc/${server.pid}/task`).map(tid => `${tid}=${readFileSync(`/proc/${server.pid}/task/${tid}/comm`, 'utf8').trim()}`).join(' ')}\n`)
        const perRequest = new Map([...after].map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) * 1000 / load.requests]))
        totals[mode].push(perRequest)
        const threads = [...perRequest].filter(([, us]) => us > 0).map(([name, us]) => `${name} ${us.toFixed(1)}`).join(', ')
        process.stdout.write(`round ${round + 1} ${mode}: ${load.requests} requests; µs a request: ${threads}\n`)
        if (traceGc) {
          await server.stop()
          const gc = gcOf(readFileSync(logFile, 'utf8'), logLines)
          process.stdout.write(`  gc: ${[...gc].map(([key, { count, ms }]) => `${key} ${count}x ${ms.toFixed(1)} ms`).join('; ')}\n`)
        }
      } finally {
        await server.stop()
        await runStore.remove()
      }
    }
  }
  const names = [...new Set(Object.values(totals).flatMap(runs => runs.flatMap(run => [...run.keys()])))]
  process.stdout.write('\nthread: export - profiler per round (µs a request)\n')
  for (const name of names) {
    const differences = totals.profiler.map((run, index) => (totals.export[index]?.get(name) ?? 0) - (run.get(name) ?? 0))
    if (differences.every(d => d === 0)) continue
    process.stdout.write(`${name}: ${differences.map(d => d.toFixed(1)).join(', ')}\n`)
  }
} finally {
  await sink.close()
  rmSync(dataDir, { recursive: true, force: true })
}
