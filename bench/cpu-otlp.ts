// Issue 39's cost bound for sending profiles out as traces, measured side by side in one run of
// interleaved rounds (fresh stores, the seed-like mix at a fixed rate, every request kept): the
// server's CPU per request and thread with the profiler off (the baseline), with @fastify/otel and
// a batched OTLP exporter (the profiler off), with the profiler on, and with the profiler on and
// PROFILER_OTLP_ENDPOINT set. Both export to the same loopback sink, which answers 200 to all.
// The bounds: the export adds at most 0.3x what @fastify/otel with its exporter adds, and at most
// 10 µs a kept profile over the profiler without export (all threads).
// The per-profile figure is not read from that table: two servers measured one after the other
// differ by more than the export costs (rounds of +5, +31 and +17.8 µs on an idle machine). It comes
// from paired rounds (cpu-pair.ts): the profiler with and without the export, both running, take the
// load in turns of 2 s over the same stretch of time, on fresh SQLite stores; the figure quoted is
// the median of the rounds' differences (all threads, a kept profile), every round printed with it.
import { join } from 'node:path'
import { packageRoot } from '../paths.js'
import { mkdirSync } from 'node:fs'
import { measureInTurns, TURN_SECONDS, turnsASide } from './cpu-pair.js'
import { interleavedRounds, measureServerCpu, medianOf, signed, us, type CpuRunSettings, type MedianCpu, type ServerCpu } from './cpu-run.js'
import { startOtlpSink } from './otlp-sink.js'
import { median, round } from './stats.js'
import { sqliteStore, type RunStore } from './stores.js'

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

/** Paired rounds: more than the table's, odd (a median that is one round's figure). */
function pairedRounds (rounds: number): number {
  return 2 * rounds - 1
}

/** Resolves once the sink has received nothing for longer than the export's delay (1 s): its last request has gone. */
async function sinkQuiet (bytes: () => number): Promise<void> {
  let last = bytes()
  let quietSince = Date.now()
  while (Date.now() - quietSince < 1200) {
    await new Promise(resolve => setTimeout(resolve, 100))
    if (bytes() !== last) {
      last = bytes()
      quietSince = Date.now()
    }
  }
}

interface PairedRound { profiler: ServerCpu, exporting: ServerCpu }

/** The profiler with and without the export in turns, `rounds` times (which one starts alternating). */
async function measurePairs (settings: OtlpCostSettings, sink: { url: string, bytes: () => number }, rounds: number): Promise<PairedRound[]> {
  const stores = [0, 1].map(index => {
    const dir = join(settings.dataDir, `otlp-pair-${index}`)
    mkdirSync(dir, { recursive: true })
    return sqliteStore(dir)
  })
  const pairs: PairedRound[] = []
  for (let index = 0; index < rounds; index++) {
    const [profilerStore, exportStore] = await Promise.all(stores.map(async store => await store.runStore(0))) as [RunStore, RunStore]
    try {
      const base = { ...settings.env, LOG_LEVEL: 'silent' }
      const [profiler, exporting] = await measureInTurns(settings, [
        { env: { ...base, ...modeEnv(PROFILER, sink.url).env }, store: profilerStore },
        { env: { ...base, ...modeEnv(EXPORTING, sink.url).env }, store: exportStore }
      ], index % 2 === 0 ? 0 : 1, async () => { await sinkQuiet(sink.bytes) })
      pairs.push({ profiler, exporting })
    } finally {
      await profilerStore.remove()
      await exportStore.remove()
    }
  }
  return pairs
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
    // In the table, one mode after the other (printed, not the figure quoted).
    const exportAdds = round(m[EXPORTING].totalUs - m[PROFILER].totalUs, 1)
    const perRound = runs[EXPORTING].map((run, index) => round(run.totalUs - (runs[PROFILER][index]?.totalUs ?? Number.NaN), 1))
    log(`in the table, all threads, round by round: export minus profiler ${perRound.map(signed).join(', ')} µs a request (measured in turn: not the figure quoted)`)
    const pairRounds = pairedRounds(settings.rounds)
    log(`\nThe export a kept profile: the profiler with and without it taking the load in turns (A B B A ...), ${pairRounds} paired rounds of ${turnsASide(settings.seconds)} turns a side of ${TURN_SECONDS * settings.rate} requests at ${settings.rate} req/s (fresh SQLite stores); µs of server CPU a kept profile, export minus profiler`)
    const pairs = await measurePairs(settings, sink, pairRounds)
    const kept = (run: ServerCpu): number => Math.max(run.profiles / Math.max(1, run.requests), 1e-9)
    const byThread = (pick: (run: ServerCpu) => number): number[] => pairs.map(({ profiler, exporting }) => round(pick(exporting) / kept(exporting) - pick(profiler) / kept(profiler), 1))
    const paired = { all: byThread(run => run.totalUs), request: byThread(run => run.requestUs), writer: byThread(run => run.writerUs), rest: byThread(run => run.restUs) }
    log('| round | request thread | writer thread | rest | all threads | profiler alone, all threads | requests (profiler, export) |')
    log('|---|---|---|---|---|---|---|')
    pairs.forEach(({ profiler, exporting }, index) => {
      log(`| ${index + 1} | ${signed(paired.request[index] as number)} | ${signed(paired.writer[index] as number)} | ${signed(paired.rest[index] as number)} | ${signed(paired.all[index] as number)} | ${us(profiler.totalUs / kept(profiler))} | ${profiler.requests}, ${exporting.requests} |`)
    })
    const perProfile = round(median(paired.all), 1)
    const spread = [Math.min(...paired.all), Math.max(...paired.all)]
    log(`| median | ${signed(median(paired.request))} | ${signed(median(paired.writer))} | ${signed(median(paired.rest))} | ${signed(perProfile)} | | |`)
    const ratio = otelAdds > 0 ? round(exportAdds / otelAdds, 3) : null
    const holdsRatio = ratio !== null && ratio <= 0.3
    const holdsPerProfile = perProfile <= 10
    log(`the export adds ${signed(perProfile)} µs a kept profile over the profiler (median of ${pairRounds} paired rounds, spread ${signed(spread[0] as number)} to ${signed(spread[1] as number)}; bound 10): ${holdsPerProfile ? 'holds' : 'DOES NOT HOLD'}`)
    log(`@fastify/otel with its batched exporter adds ${signed(otelAdds)} µs a request over the baseline; the export (${signed(exportAdds)} in the table) ${ratio === null ? '-' : ratio}x that (bound 0.3x): ${holdsRatio ? 'holds' : 'DOES NOT HOLD'}`)
    return { rate: settings.rate, rounds: settings.rounds, modes: m, otelAddsUs: otelAdds, exportAddsUs: exportAdds, exportPerProfileUs: perProfile, ratioToFastifyOtel: ratio, holds: { ratio: holdsRatio, perProfile: holdsPerProfile }, exportMinusProfilerPerRoundUs: perRound, pairedPerProfileUs: paired, pairedSpreadUs: spread, sinkRequests: sink.requests(), bytesSent: sent }
  } finally {
    await sink.close()
  }
}
