// Where the OTLP export's CPU goes outside the writer thread (issue 39): the server with the profiler
// on, with and without PROFILER_OTLP_ENDPOINT, in interleaved rounds under the OTLP section's load
// (cpu-otlp.ts: the seed-like mix at a fixed rate, fresh SQLite store, every request kept). Each
// thread's CPU by its name (V8's helper threads, libuv's pool, the writer, the request thread), and
// with --trace-gc each isolate's garbage collections (count and pause ms, by kind).
// With --perf=<dir>, `perf record` of the whole process over the measured load (perf report --sort pid,sym);
// --node=<option> passes a node option to the server (such as --trace-gc-nvp), --logs=<dir> keeps its output.
// --roots=<A>,<B>: two builds' servers (package folders with dist/ built), each with and without the
// export, all four in each round: each build's export minus profiler, and B's minus A's.
//   node dist-bench/bench/otlp-threads.js [rounds=3] [seconds=10] [rate=2000] [--trace-gc] [--cpu-prof=<dir>] [--perf=<dir>] [--node=<option>...] [--logs=<dir>] [--roots=<A>,<B>]
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { packageRoot } from '../paths.js'
import { runLoad } from './load.js'
import { startOtlpSink } from './otlp-sink.js'
import { startBenchServer } from './server-process.js'
import { median } from './stats.js'
import { sqliteStore, UNBOUNDED_RETENTION_ENV } from './stores.js'

const [roundsArg = '3', secondsArg = '10', rateArg = '2000'] = process.argv.slice(2).filter(arg => !arg.startsWith('--'))
const traceGc = process.argv.includes('--trace-gc')
const cpuProfDir = process.argv.find(arg => arg.startsWith('--cpu-prof='))?.slice('--cpu-prof='.length)
const perfDir = process.argv.find(arg => arg.startsWith('--perf='))?.slice('--perf='.length)
const extraNodeArgs = process.argv.filter(arg => arg.startsWith('--node=')).map(arg => arg.slice('--node='.length))
const logsDir = process.argv.find(arg => arg.startsWith('--logs='))?.slice('--logs='.length)
const roots = process.argv.find(arg => arg.startsWith('--roots='))?.slice('--roots='.length).split(',') ?? [packageRoot]
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
      if (tid === String(pid)) {
        // What of the request thread's time is the kernel's, and how often it was taken off a core (not a time: a count, per 1,000 requests once divided).
        byName.set('request thread, of it in the kernel', Number(fields[12]) * 10)
        const switches = /nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))?.[1]
        byName.set('request thread, preempted (count per 1,000 requests)', Number(switches ?? 0))
      }
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
const runs = roots.flatMap((root, index) => (['profiler', 'export'] as Mode[]).map(mode => ({ root, mode, name: roots.length === 1 ? mode : `${'AB'[index] ?? index}-${mode}` })))
const totals = new Map<string, Array<Map<string, number>>>(runs.map(run => [run.name, []]))
try {
  for (let round = 0; round < rounds; round++) {
    // Each round in another order: no run always on a warmer machine.
    for (let i = 0; i < runs.length; i++) {
      const { root, mode, name } = runs[(i + round) % runs.length] as typeof runs[number]
      const runStore = await store.runStore(0)
      if (logsDir !== undefined) mkdirSync(logsDir, { recursive: true })
      const logFile = join(logsDir ?? dataDir, `${name}-${round}.log`)
      const profDir = cpuProfDir === undefined ? undefined : join(cpuProfDir, `${name}-${round}`)
      if (profDir !== undefined) mkdirSync(profDir, { recursive: true })
      if (perfDir !== undefined) mkdirSync(perfDir, { recursive: true })
      const nodeArgs = [...extraNodeArgs, ...(traceGc ? ['--trace-gc'] : []), ...(profDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`])]
      const server = await startBenchServer({ ...UNBOUNDED_RETENTION_ENV, LOG_LEVEL: 'silent', ...modes[mode], ...runStore.env, DATABASE_PATH: join(dataDir, 'app.sqlite') }, { logFile, nodeArgs, root })
      try {
        await runLoad(server.url, 'seed-like', { seconds: 2, rate })
        const logLines = traceGc ? readFileSync(logFile, 'utf8').split('\n').length - 1 : 0
        const before = threadCpuByName(server.pid)
        const perf = perfDir === undefined ? null : spawn('perf', ['record', '-F', '499', '-p', String(server.pid), '-o', join(perfDir, `${name}-${round}.data`), '--', 'sleep', String(seconds + 1.5)], { stdio: 'ignore' })
        const perfDone = perf === null ? null : new Promise(resolve => perf.once('exit', resolve))
        const load = await runLoad(server.url, 'seed-like', { seconds, rate })
        await new Promise(resolve => setTimeout(resolve, 1500)) // the writer's and the export's last batches
        const after = threadCpuByName(server.pid)
        await perfDone
        // Which thread is which (perf names them by tid): the writer's tid and the others' names.
        if (perfDir !== undefined) process.stdout.write(`  threads: ${readdirSync(`/proc/${server.pid}/task`).map(tid => `${tid}=${readFileSync(`/proc/${server.pid}/task/${tid}/comm`, 'utf8').trim()}`).join(' ')}\n`)
        const perRequest = new Map([...after].map(([thread, ms]) => [thread, (ms - (before.get(thread) ?? 0)) * 1000 / load.requests]))
        totals.get(name)?.push(perRequest)
        const threads = [...perRequest].filter(([, us]) => us > 0).map(([thread, us]) => `${thread} ${us.toFixed(1)}`).join(', ')
        process.stdout.write(`round ${round + 1} ${name}: ${load.requests} requests; µs a request: ${threads}\n`)
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
  const threadNames = [...new Set([...totals.values()].flatMap(list => list.flatMap(run => [...run.keys()])))]
  /** Per round, export minus profiler of one build, by thread (and all threads). */
  const added = (prefix: string): Map<string, number[]> => {
    const without = totals.get(`${prefix}profiler`) ?? []
    const withExport = totals.get(`${prefix}export`) ?? []
    const total = (run: Map<string, number> | undefined): number => [...(run ?? new Map<string, number>())].filter(([thread]) => !thread.startsWith('request thread,')).reduce((sum, [, value]) => sum + value, 0)
    const all = without.map((run, index) => total(withExport[index]) - total(run))
    return new Map([...threadNames.map(thread => [thread, without.map((run, index) => (withExport[index]?.get(thread) ?? 0) - (run.get(thread) ?? 0))] as [string, number[]]), ['all threads', all]])
  }
  const line = (values: number[]): string => `${values.map(d => d.toFixed(1)).join(', ')} (median ${median(values).toFixed(1)})`
  const prefixes = roots.length === 1 ? [''] : ['A-', 'B-']
  const byBuild = prefixes.map(added)
  for (const [index, prefix] of prefixes.entries()) {
    process.stdout.write(`\n${prefix === '' ? '' : `${prefix.slice(0, 1)}: `}export - profiler per round, µs a request\n`)
    for (const [thread, values] of byBuild[index] ?? []) if (values.some(d => d !== 0)) process.stdout.write(`  ${thread}: ${line(values)}\n`)
  }
  if (byBuild.length === 2) {
    process.stdout.write('\nB - A of what the export adds, per round\n')
    for (const [thread, a] of byBuild[0] ?? []) {
      const b = byBuild[1]?.get(thread) ?? []
      const differences = a.map((value, index) => (b[index] ?? 0) - value)
      if (differences.some(d => d !== 0)) process.stdout.write(`  ${thread}: ${line(differences)}\n`)
    }
  }
} finally {
  await sink.close()
  rmSync(dataDir, { recursive: true, force: true })
}
