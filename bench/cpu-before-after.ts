// Issue 23's cost bound, measured: the server's CPU per request and thread on the seed-like mix with
// this build's panels against a build of the revision before them (revision-build.ts), in the same
// run, in interleaved rounds, each build with the profiler off and on, on a fresh store. The bound:
// with the profiler on, the request thread's CPU grows by at most 5 µs per request.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { interleavedRounds, measureServerCpu, medianOf, signed, us, type CpuRunSettings, type MedianCpu, type ServerCpu } from './cpu-run.js'
import { buildRevision } from './revision-build.js'
import { perRoundGrowth, round } from './stats.js'
import type { RunStore } from './stores.js'

/**
 * main before the database panel (merge e43eb83) and the logs panel (merge 380c22f): it has the
 * panel modules (issue 23's first part) and the statistics store, not the statement log.
 */
export const BEFORE_PANELS = '182a9c1'
const BOUND_US = 5

export interface BeforeAfterSettings extends CpuRunSettings {
  /** The git revision measured as "before". */
  revision: string
  runStore: (size: number) => Promise<RunStore>
  rounds: number
  /** Environment shared by every server (retention bounds). */
  env: Record<string, string>
  log: (line: string) => void
}

const MODES = ['before, off', 'before, on', 'after, off', 'after, on'] as const
type Mode = typeof MODES[number]

export async function measureBeforeAfter (settings: BeforeAfterSettings): Promise<Record<string, unknown>> {
  const { log } = settings
  log(`\nbuilding ${settings.revision} in a temporary worktree …`)
  const build = await buildRevision(settings.revision)
  // Its own advisors' database: one migrated by this build may be newer than that revision knows.
  const beforeApp = join(settings.dataDir, 'app-before.sqlite')
  for (const suffix of ['', '-wal', '-shm']) rmSync(beforeApp + suffix, { force: true })
  let runs: Record<Mode, ServerCpu[]>
  try {
    runs = await interleavedRounds(MODES, settings.rounds, async mode => {
      const before = mode.startsWith('before')
      const store = await settings.runStore(0)
      try {
        const env = { ...settings.env, PROFILER: mode.endsWith('on') ? 'on' : 'off', LOG_LEVEL: 'silent', DATABASE_PATH: before ? beforeApp : join(settings.dataDir, 'app.sqlite') }
        return await measureServerCpu(settings, env, store, before ? { root: build.root } : {})
      } finally {
        await store.remove()
      }
    })
  } finally {
    build.remove()
  }
  const m = Object.fromEntries(MODES.map(mode => [mode, medianOf(runs[mode])])) as Record<Mode, MedianCpu>
  const before = m['before, on']
  const after = m['after, on']
  log(`\nBefore the panels (${build.label}) and after (this build), fresh store: µs of server CPU per request (median of ${settings.rounds} interleaved rounds at ${settings.rate} req/s)`)
  log(`| | ${MODES.join(' | ')} | after − before (on) | after / before (on) |`)
  log(`|---|${MODES.map(() => '---|').join('')}---|---|`)
  const row = (name: string, value: (cpu: MedianCpu) => number | null): void => {
    const a = value(after)
    const b = value(before)
    const compared = a === null || b === null ? ['-', '-'] : [signed(a - b), b === 0 ? '-' : (a / b).toFixed(3)]
    log(`| ${name} | ${MODES.map(mode => us(value(m[mode]))).join(' | ')} | ${compared.join(' | ')} |`)
  }
  row('request thread', cpu => cpu.requestUs)
  row('writer thread', cpu => cpu.writerUs)
  row('writer, per profile', cpu => cpu.writerPerProfileUs)
  row('rest', cpu => cpu.restUs)
  row('all threads', cpu => cpu.totalUs)
  const growth = round(after.requestUs - before.requestUs, 1)
  const holds = growth <= BOUND_US
  const shareBefore = before.requestUs - m['before, off'].requestUs
  const shareAfter = after.requestUs - m['after, off'].requestUs
  // Each round's pair was measured minutes apart at most: their spread shows how far the machine moves the figure.
  const perRound = perRoundGrowth(runs['after, on'], runs['before, on'])
  log(`request thread, profiler on: ${signed(growth)} µs per request with the panels (bound ≤ +${BOUND_US} µs): ${holds ? 'holds' : 'DOES NOT HOLD'}`)
  log(`  after − before in each round: ${perRound.map(signed).join(', ')} (from ${signed(Math.min(...perRound))} to ${signed(Math.max(...perRound))})`)
  log(`the profiler's own part of the request thread (on − off of each build): before ${us(shareBefore)}, after ${us(shareAfter)} (${signed(shareAfter - shareBefore)} µs)`)
  return {
    revision: build.label,
    rate: settings.rate,
    rounds: settings.rounds,
    modes: m,
    requestThreadGrowthUs: growth,
    requestThreadGrowthPerRoundUs: perRound,
    profilerPartGrowthUs: round(shareAfter - shareBefore, 1),
    boundUs: BOUND_US,
    holds
  }
}
