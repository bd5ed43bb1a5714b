// Issue 38's bounds, measured side by side in one run of interleaved rounds on fresh stores of the
// run's engine (the seed-like mix at a fixed rate): the server's CPU per request and thread with
// the profiler off (the baseline), with request logging at `info`, with OpenTelemetry tracing as a
// peer (@fastify/otel and a batched OTLP exporter to a loopback sink), and with the profiler at
// PROFILER_SAMPLE=1 (every request kept, every panel) and 0.01. On PostgreSQL the cluster's CPU is
// counted with the service's (bench/cluster-cpu.ts).
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../paths.js'
import { interleavedRounds, measureServerCpu, medianOf, signed, us, type CpuRunSettings, type MedianCpu } from './cpu-run.js'
import { startOtlpSink } from './otlp-sink.js'
import { median, round } from './stats.js'
import type { RunStore } from './stores.js'

export interface RecordingCostSettings extends CpuRunSettings {
  runStore: (size: number) => Promise<RunStore>
  /** The database server's CPU so far in ms (0 for SQLite). */
  databaseCpuMs: () => number
  storeName: string
  rounds: number
  env: Record<string, string>
  log: (line: string) => void
}

const BASELINE = 'profiler off (baseline)'
const LOGGING = 'request logging at info'
const OTEL = 'OpenTelemetry (@fastify/otel, batched OTLP)'
const KEPT = 'profiler, every request kept'
const SAMPLED = 'profiler at PROFILER_SAMPLE=0.01'
const MODES = [BASELINE, LOGGING, OTEL, KEPT, SAMPLED] as const
type Mode = typeof MODES[number]

/** The preload's build (npm run bench compiles bench/ into dist-bench/). */
const PRELOAD = join(packageRoot, 'dist-bench', 'bench', 'otel-batched-preload.js')

function modeEnv (mode: Mode, sink: string): { env: Record<string, string>, nodeArgs: string[] } {
  switch (mode) {
    case BASELINE: return { env: { PROFILER: 'off', LOG_LEVEL: 'silent' }, nodeArgs: [] }
    case LOGGING: return { env: { PROFILER: 'off', LOG_LEVEL: 'info' }, nodeArgs: [] }
    case OTEL: return { env: { PROFILER: 'off', LOG_LEVEL: 'silent', OTEL_EXPORTER_OTLP_ENDPOINT: sink }, nodeArgs: [`--import=${PRELOAD}`] }
    case KEPT: return { env: { PROFILER: 'on', LOG_LEVEL: 'silent', PROFILER_SAMPLE: '1' }, nodeArgs: [] }
    case SAMPLED: return { env: { PROFILER: 'on', LOG_LEVEL: 'silent', PROFILER_SAMPLE: '0.01' }, nodeArgs: [] }
  }
}

/** A SQLite store's file and WAL, in bytes. */
function sqliteFileBytes (path: string): number {
  return [path, `${path}-wal`].filter(file => existsSync(file)).reduce((sum, file) => sum + statSync(file).size, 0)
}

/** A bound's line: the figure, the bound, and whether it holds (a ratio over a cost that was not above the baseline cannot be judged). */
function verdict (what: string, value: number, bound: number, unit: string, over = 1): { line: string, holds: boolean | null } {
  if (over <= 0) return { line: `${what}: cannot be judged (what it is compared with added ${over} µs)`, holds: null }
  const holds = value <= bound
  return { line: `${what}: ${round(value, 2)}${unit} (bound ${bound}${unit}): ${holds ? 'holds' : 'DOES NOT HOLD'}`, holds }
}

export async function measureRecordingCost (settings: RecordingCostSettings): Promise<Record<string, unknown>> {
  const sink = await startOtlpSink()
  try {
    // A SQLite store's bytes on disk (file and WAL) per profile after each run that keeps every request.
    const bytesPerProfile: number[] = []
    const runs = await interleavedRounds(MODES, settings.rounds, async mode => {
      const store = await settings.runStore(0)
      const { env, nodeArgs } = modeEnv(mode, sink.url)
      try {
        const run = await measureServerCpu(settings, { ...settings.env, ...env, DATABASE_PATH: join(settings.dataDir, 'app.sqlite') }, store, { nodeArgs }, settings.databaseCpuMs)
        const path = store.env.PROFILER_DATABASE_PATH
        if (mode === KEPT && path !== undefined) bytesPerProfile.push(sqliteFileBytes(path) / await store.profiles())
        return run
      } finally {
        await store.remove()
      }
    })
    const m = Object.fromEntries(MODES.map(mode => [mode, medianOf(runs[mode])])) as Record<Mode, MedianCpu>
    // All threads, and the database server's CPU with them (0 on SQLite).
    const all = (mode: Mode): number => m[mode].totalUs + m[mode].databaseUs
    const added = (mode: Mode): number => round(all(mode) - all(BASELINE), 1)
    const { log } = settings
    log(`\nRecording against logging and tracing, ${settings.storeName} store, fresh: µs of CPU per request (median of ${settings.rounds} interleaved rounds at ${settings.rate} req/s)`)
    log('| mode | request thread | writer thread | writer, per profile | rest | database server | all | added to baseline | ratio to logging\'s |')
    log('|---|---|---|---|---|---|---|---|---|')
    for (const mode of MODES) {
      const r = m[mode]
      const ratio = mode === BASELINE ? '-' : `${round(added(mode) / added(LOGGING), 2)}×`
      log(`| ${mode} | ${us(r.requestUs)} | ${us(r.writerUs)} | ${us(r.writerPerProfileUs)} | ${us(r.restUs)} | ${us(r.databaseUs)} | ${us(all(mode))} | ${signed(added(mode))} | ${ratio} |`)
    }
    const postgres = settings.storeName === 'postgres'
    const verdicts = [
      verdict('every request kept: added CPU against logging\'s', added(KEPT) / added(LOGGING), postgres ? 3 : 2, '×', added(LOGGING)),
      verdict('every request kept: added CPU against OpenTelemetry\'s', added(KEPT) / added(OTEL), 0.3, '×', added(OTEL)),
      verdict('request thread, every request kept: added', m[KEPT].requestUs - m[BASELINE].requestUs, 25, ' µs'),
      verdict('writer, a profile', m[KEPT].writerPerProfileUs ?? Number.POSITIVE_INFINITY, 15, ' µs'),
      verdict('PROFILER_SAMPLE=0.01: added CPU against logging\'s', added(SAMPLED) / added(LOGGING), 1, '×', added(LOGGING))
    ]
    for (const { line } of verdicts) log(line)
    const diskBytes = bytesPerProfile.length === 0 ? null : round(median(bytesPerProfile), 0)
    if (diskBytes !== null) verdicts.push(verdict('bytes on disk a stored profile (file and WAL, fresh store)', diskBytes, 1500, ' B'))
    for (const { line } of verdicts.slice(5)) log(line)
    const perRound = runs[KEPT].map((run, index) => round(run.totalUs + run.databaseUs - (runs[BASELINE][index]?.totalUs ?? Number.NaN) - (runs[BASELINE][index]?.databaseUs ?? 0), 1))
    log(`all threads, round by round: every request kept minus the baseline ${perRound.map(signed).join(', ')} µs`)
    return { store: settings.storeName, rate: settings.rate, rounds: settings.rounds, modes: m, bytesOnDiskPerProfile: diskBytes, addedUs: Object.fromEntries(MODES.map(mode => [mode, added(mode)])), holds: verdicts.map(({ line, holds }) => ({ line, holds })), keptMinusBaselinePerRoundUs: perRound }
  } finally {
    await sink.close()
  }
}
