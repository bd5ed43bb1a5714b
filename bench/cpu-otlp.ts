// Issue 39's cost bound for sending profiles out as traces, measured side by side in one run of
// interleaved rounds (fresh stores, the seed-like mix at a fixed rate, every request kept): the
// server's CPU per request and thread with the profiler off (the baseline), with @fastify/otel and
// a batched OTLP exporter (the profiler off), with the profiler on, and with the profiler on and
// PROFILER_OTLP_ENDPOINT set. Both export to the same loopback sink, which answers 200 to all.
// The bounds: the export adds at most 0.3x what @fastify/otel with its exporter adds, and at most
// 10 µs a kept profile over the profiler without export (all threads).
import { join } from 'node:path'
import { packageRoot } from '../paths.js'
import { interleavedRounds, measureServerCpu, medianOf, signed, us, type CpuRunSettings, type MedianCpu } from './cpu-run.js'
import { startOtlpSink } from './otlp-sink.js'
import { round } from './stats.js'
import type { RunStore } from './stores.js'

export interface OtlpCostSettings extends CpuRunSettings {
  runStore: (size: number) => Promise<RunStore>
  rounds: number
  env: Record<string, string>
  log: (line: string) => void
}

const BASELINE = 'profiler off (baseline)'
const FASTIFY_OTEL = '@fastify/otel + batched OTLP exporter'
const PROFILER = 'profiler on'
const EXPORTING = 'profiler on + OTLP export'
const MODES = [BASELINE, FASTIFY_OTEL, PROFILER, EXPORTING] as const
type Mode = typeof MODES[number]

/** The preload's build (npm run bench compiles bench/ into dist-bench/). */
const PRELOAD = join(packageRoot, 'dist-bench', 'bench', 'otel-batched-preload.js')

function modeEnv (mode: Mode, sink: string): { env: Record<string, string>, nodeArgs: string[] } {
  switch (mode) {
    case BASELINE: return { env: { PROFILER: 'off' }, nodeArgs: [] }
    case FASTIFY_OTEL: return { env: { PROFILER: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: sink }, nodeArgs: [`--import=${PRELOAD}`] }
    case PROFILER: return { env: { PROFILER: 'on', PROFILER_SAMPLE: '1' }, nodeArgs: [] }
    case EXPORTING: return { env: { PROFILER: 'on', PROFILER_SAMPLE: '1', PROFILER_OTLP_ENDPOINT: sink }, nodeArgs: [] }
  }
}

export async function measureOtlpCost (settings: OtlpCostSettings): Promise<Record<string, unknown>> {
  const sink = await startOtlpSink()
  const sent: Record<string, number> = {}
  try {
    const runs = await interleavedRounds(MODES, settings.rounds, async mode => {
      const store = await settings.runStore(0)
      const { env, nodeArgs } = modeEnv(mode, sink.url)
      const before = sink.bytes()
      try {
        return await measureServerCpu(settings, { ...settings.env, LOG_LEVEL: 'silent', ...env, DATABASE_PATH: join(settings.dataDir, 'app.sqlite') }, store, { nodeArgs })
      } finally {
        sent[mode] = (sent[mode] ?? 0) + sink.bytes() - before
        await store.remove()
      }
    })
    const m = Object.fromEntries(MODES.map(mode => [mode, medianOf(runs[mode])])) as Record<Mode, MedianCpu>
    const base = m[BASELINE]
    const { log } = settings
    log(`\nOTLP export against @fastify/otel, fresh store: µs of server CPU per request (median of ${settings.rounds} interleaved rounds at ${settings.rate} req/s)`)
    log('| mode | request thread | added to baseline | writer thread | rest | all threads | added to baseline | ratio to baseline | bytes sent to the sink |')
    log('|---|---|---|---|---|---|---|---|---|')
    for (const mode of MODES) {
      const r = m[mode]
      log(`| ${mode} | ${us(r.requestUs)} | ${signed(r.requestUs - base.requestUs)} | ${us(r.writerUs)} | ${us(r.restUs)} | ${us(r.totalUs)} | ${signed(r.totalUs - base.totalUs)} | ${(r.totalUs / base.totalUs).toFixed(3)} | ${sent[mode] ?? 0} |`)
    }
    const otelAdds = round(m[FASTIFY_OTEL].totalUs - base.totalUs, 1)
    // At PROFILER_SAMPLE=1 every request is a kept profile: per request is per profile.
    const exportAdds = round(m[EXPORTING].totalUs - m[PROFILER].totalUs, 1)
    const perProfile = round(exportAdds / Math.max(m[EXPORTING].keptShare, 1e-9), 1)
    const ratio = otelAdds > 0 ? round(exportAdds / otelAdds, 3) : null
    const holdsRatio = ratio !== null && ratio <= 0.3
    const holdsPerProfile = perProfile <= 10
    log(`the export adds ${signed(exportAdds)} µs a request over the profiler (${signed(perProfile)} µs a kept profile; bound 10): ${holdsPerProfile ? 'holds' : 'DOES NOT HOLD'}`)
    log(`@fastify/otel with its batched exporter adds ${signed(otelAdds)} µs a request over the baseline; the export ${ratio === null ? '-' : ratio}x that (bound 0.3x): ${holdsRatio ? 'holds' : 'DOES NOT HOLD'}`)
    const perRound = runs[EXPORTING].map((run, index) => round(run.totalUs - (runs[PROFILER][index]?.totalUs ?? Number.NaN), 1))
    log(`all threads, round by round: export minus profiler ${perRound.map(signed).join(', ')} µs`)
    return { rate: settings.rate, rounds: settings.rounds, modes: m, otelAddsUs: otelAdds, exportAddsUs: exportAdds, exportPerProfileUs: perProfile, ratioToFastifyOtel: ratio, holds: { ratio: holdsRatio, perProfile: holdsPerProfile }, exportMinusProfilerPerRoundUs: perRound, sinkRequests: sink.requests(), bytesSent: sent }
  } finally {
    await sink.close()
  }
}
