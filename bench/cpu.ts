// Server CPU per request, per thread, for the profiler off and on, with and without request logs:
// what profiling a request costs, compared with what logging it costs (issue "costs no more than
// logging it"). Runs at a fixed rate well below saturation, so that every mode does the same work.
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { readThreadProfiles, type ThreadProfile } from './cpu-profile.js'
import { interleavedRounds, measureServerCpu, medianOf, type CpuRunSettings, type ServerCpu } from './cpu-run.js'
import type { RunStore } from './stores.js'
import { round } from './stats.js'
import type { CpuPerRequest } from './thread-cpu.js'

export interface CpuSettings {
  dataDir: string
  /** A writable copy of the seeded store of `size` (an empty store for 0), either engine. */
  runStore: (size: number) => Promise<RunStore>
  /** The size of the seeded large store. */
  largeSize: number
  largeLabel: string
  seconds: number
  warmupSeconds: number
  rounds: number
  /** Requests per second offered in every mode. */
  rate: number
  cpuProf: boolean
  log: (line: string) => void
  /** Environment shared by every server (retention bounds). */
  env: Record<string, string>
}

const MODES = {
  off: { PROFILER: 'off', LOG_LEVEL: 'silent' },
  on: { PROFILER: 'on', LOG_LEVEL: 'silent' },
  logs: { PROFILER: 'off', LOG_LEVEL: 'info' },
  'on+logs': { PROFILER: 'on', LOG_LEVEL: 'info' }
} as const
type Mode = keyof typeof MODES

const runSettings = (settings: CpuSettings): CpuRunSettings =>
  ({ dataDir: settings.dataDir, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, rate: settings.rate })

/** One run of `mode` on a fresh copy of the store of `size`. */
async function measureOnce (settings: CpuSettings, mode: Mode, size: number, nodeArgs: string[] = []): Promise<ServerCpu> {
  const store = await settings.runStore(size)
  try {
    return await measureServerCpu(runSettings(settings), { ...settings.env, ...MODES[mode], DATABASE_PATH: join(settings.dataDir, 'app.sqlite') }, store, { nodeArgs })
  } finally {
    await store.remove()
  }
}

/** Interleaved rounds of the four modes against one store; the median of each. */
async function measureStore (settings: CpuSettings, label: string, size: number): Promise<Record<Mode, CpuPerRequest>> {
  const modes = Object.keys(MODES) as Mode[]
  const runs = await interleavedRounds(modes, settings.rounds, async mode => await measureOnce(settings, mode, size))
  const result = { off: medianOf(runs.off), on: medianOf(runs.on), logs: medianOf(runs.logs), 'on+logs': medianOf(runs['on+logs']) }
  const { log } = settings
  log(`\n${label}: µs of server CPU per request (median of ${settings.rounds} interleaved rounds at ${settings.rate} req/s)`)
  log('| mode | request thread | writer thread | rest | all threads | added to off |')
  log('|---|---|---|---|---|---|')
  for (const mode of modes) {
    const r = result[mode]
    log(`| ${mode} | ${r.requestUs} | ${r.writerUs} | ${r.restUs} | ${r.totalUs} | ${round(r.totalUs - result.off.totalUs, 1)} |`)
  }
  const profilerAdds = result.on.totalUs - result.off.totalUs
  const logsAdd = result.logs.totalUs - result.off.totalUs
  const requestThreadAdds = result.on.requestUs - result.off.requestUs
  log(`profiler adds ${round(profilerAdds, 1)} µs (all threads) = ${round(profilerAdds / logsAdd, 2)}× what request logging adds (${round(logsAdd, 1)} µs); target ≤ 2× (stretch 1×)`)
  log(`request thread: profiler adds ${round(requestThreadAdds, 1)} µs = ${round(requestThreadAdds / logsAdd, 2)}× logging; target ≤ 1×`)
  return result
}

function printProfiles (profiles: ThreadProfile[], requests: number, log: (line: string) => void): void {
  for (const profile of profiles) {
    log(`\n${profile.thread} thread (${profile.file}): ${round((profile.busyMs * 1000) / requests, 1)} µs busy per request; top functions by self time (µs per request)`)
    for (const fn of profile.top) log(`  ${round((fn.selfMs * 1000) / requests, 2).toFixed(2).padStart(7)}  ${fn.name}`)
  }
}

export async function measureCpu (settings: CpuSettings): Promise<Record<string, unknown>> {
  const fresh = await measureStore(settings, 'Fresh store', 0)
  const large = await measureStore(settings, `${settings.largeLabel} store`, settings.largeSize)
  const result: Record<string, unknown> = { rate: settings.rate, fresh, large }
  if (settings.cpuProf) {
    // One profiled run (profiler on, fresh store) with V8's sampling profiler on every thread.
    const dir = join(settings.dataDir, 'cpu-prof')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    await measureOnce(settings, 'on', 0, ['--cpu-prof', `--cpu-prof-dir=${dir}`])
    const requests = settings.rate * settings.seconds + settings.rate * settings.warmupSeconds
    settings.log(`\nCPU profiles written to ${dir} (open them in Chrome DevTools); per request = over the ${requests} requests of the run and its warm-up`)
    printProfiles(readThreadProfiles(dir), requests, settings.log)
    result.cpuProfiles = dir
  }
  return result
}
