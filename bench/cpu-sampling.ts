// Issue 24's cost bound, measured: the server's CPU per request and thread at PROFILER_SAMPLE=1, 0.1
// and 0.01 (logs silent), beside request logging at `info` with the profiler off, against the
// baseline of both off, in one run of interleaved rounds on a fresh store. The bound: at 0.01 the
// profiler adds no more CPU per request on the request thread than request logging at `info` does.
import { join } from 'node:path'
import { interleavedRounds, measureServerCpu, medianOf, signed, us, type CpuRunSettings, type MedianCpu } from './cpu-run.js'
import { median, round } from './stats.js'
import type { RunStore } from './stores.js'

export interface SamplingSettings extends CpuRunSettings {
  runStore: (size: number) => Promise<RunStore>
  rounds: number
  /** Environment shared by every server (retention bounds). */
  env: Record<string, string>
  log: (line: string) => void
}

const MODES = {
  'off, logs off (baseline)': { PROFILER: 'off', LOG_LEVEL: 'silent' },
  'off, logs at info': { PROFILER: 'off', LOG_LEVEL: 'info' },
  'sample 1': { PROFILER: 'on', LOG_LEVEL: 'silent', PROFILER_SAMPLE: '1' },
  'sample 0.1': { PROFILER: 'on', LOG_LEVEL: 'silent', PROFILER_SAMPLE: '0.1' },
  'sample 0.01': { PROFILER: 'on', LOG_LEVEL: 'silent', PROFILER_SAMPLE: '0.01' }
} as const
type Mode = keyof typeof MODES
const BASELINE: Mode = 'off, logs off (baseline)'
const LOGGING: Mode = 'off, logs at info'
const SAMPLED: Mode = 'sample 0.01'

export async function measureSampling (settings: SamplingSettings): Promise<Record<string, unknown>> {
  const modes = Object.keys(MODES) as Mode[]
  const runs = await interleavedRounds(modes, settings.rounds, async mode => {
    const store = await settings.runStore(0)
    try {
      return await measureServerCpu(settings, { ...settings.env, ...MODES[mode], DATABASE_PATH: join(settings.dataDir, 'app.sqlite') }, store)
    } finally {
      await store.remove()
    }
  })
  const m = Object.fromEntries(modes.map(mode => [mode, medianOf(runs[mode])])) as Record<Mode, MedianCpu>
  const base = m[BASELINE]
  const { log } = settings
  log(`\nSampling against request logging, fresh store: µs of server CPU per request (median of ${settings.rounds} interleaved rounds at ${settings.rate} req/s)`)
  log('| mode | request thread | added to baseline | writer thread | writer, per profile | rest | all threads | added to baseline | profiles per request |')
  log('|---|---|---|---|---|---|---|---|---|')
  for (const mode of modes) {
    const r = m[mode]
    log(`| ${mode} | ${us(r.requestUs)} | ${signed(r.requestUs - base.requestUs)} | ${us(r.writerUs)} | ${us(r.writerPerProfileUs)} | ${us(r.restUs)} | ${us(r.totalUs)} | ${signed(r.totalUs - base.totalUs)} | ${r.keptShare} |`)
  }
  const added = (mode: Mode, key: 'requestUs' | 'totalUs'): number => round(m[mode][key] - base[key], 1)
  const sampledAdds = added(SAMPLED, 'requestUs')
  const loggingAdds = added(LOGGING, 'requestUs')
  const holds = sampledAdds <= loggingAdds
  log(`request thread: at 0.01 the profiler adds ${signed(sampledAdds)} µs per request, request logging at info ${signed(loggingAdds)} µs (bound: no more): ${holds ? 'holds' : 'DOES NOT HOLD'}`)
  // The same comparison round by round (both modes of a round ran minutes apart at most), to show
  // how much of the difference is the machine's drift between rounds.
  const perRound = runs[SAMPLED].map((run, index) => round(run.requestUs - (runs[LOGGING][index]?.requestUs ?? Number.NaN), 1))
  log(`request thread, round by round: 0.01 minus logging ${perRound.map(signed).join(', ')} µs (median ${signed(round(median(perRound), 1))})`)
  log(`all threads: at 0.01 the profiler adds ${signed(added(SAMPLED, 'totalUs'))} µs, logging ${signed(added(LOGGING, 'totalUs'))} µs`)
  return {
    rate: settings.rate,
    rounds: settings.rounds,
    modes: m,
    requestThreadAddedUs: { sampled001: sampledAdds, logging: loggingAdds },
    sampledMinusLoggingPerRoundUs: perRound,
    allThreadsAddedUs: { sampled001: added(SAMPLED, 'totalUs'), logging: added(LOGGING, 'totalUs') },
    holds
  }
}
