// Issue 23's cost measured in process: this build against the revision before the panels, each run
// in a child process of its own (in-process-child.ts), in interleaved rounds. No sockets, no HTTP
// parsing and no load generator on the same two cores: steadier than the server's figures
// (cpu-before-after.ts, the bound's own measure) and lower, and with what the server cannot give,
// the bytes allocated a request: the panels cost mostly by allocating (the young generation's
// collections), so allocation is the figure to move first.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { packageRoot } from '../paths.js'
import { interleavedRounds, signed } from './cpu-run.js'
import { buildRevision } from './revision-build.js'
import { median, perRoundGrowth, round } from './stats.js'

const run = promisify(execFile)
const CHILD = join(packageRoot, 'dist-bench', 'bench', 'in-process-child.js')

interface ChildRun { requestUs: number, allocatedBytes: number }

export interface InProcessSettings {
  revision: string
  rounds: number
  /** Requests measured a run (and as many again for the allocation pass). */
  requests: number
  log: (line: string) => void
}

async function measureBuild (root: string, requests: number): Promise<ChildRun> {
  const { stdout } = await run(process.execPath, [CHILD, root, String(requests)], { maxBuffer: 1024 * 1024 })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildRun
}

export async function measurePanelsInProcess ({ revision, rounds, requests, log }: InProcessSettings): Promise<Record<string, unknown>> {
  log(`\nbuilding ${revision} in a temporary worktree …`)
  const build = await buildRevision(revision)
  let runs: Record<'before' | 'after', ChildRun[]>
  try {
    runs = await interleavedRounds(['before', 'after'] as const, rounds, async mode => await measureBuild(mode === 'before' ? build.root : packageRoot, requests))
  } finally {
    build.remove()
  }
  const figures = (mode: 'before' | 'after') => ({
    requestUs: round(median(runs[mode].map(r => r.requestUs)), 1),
    allocatedKb: round(median(runs[mode].map(r => r.allocatedBytes)) / 1024, 1)
  })
  const before = figures('before')
  const after = figures('after')
  log(`\nIn process, the profiler on, ${requests.toLocaleString('en')} injected requests of the seed-like mix a run: median of ${rounds} interleaved rounds (${build.label} against this build)`)
  log('| | before | after | after − before |')
  log('|---|---|---|---|')
  log(`| main thread, µs a request | ${before.requestUs} | ${after.requestUs} | ${signed(after.requestUs - before.requestUs)} |`)
  log(`| allocated, KB a request | ${before.allocatedKb} | ${after.allocatedKb} | ${signed(after.allocatedKb - before.allocatedKb)} |`)
  const perRound = perRoundGrowth(runs.after, runs.before)
  log(`main thread, after − before in each round: ${perRound.map(signed).join(', ')}`)
  return { revision: build.label, rounds, requests, before, after, perRoundUs: perRound, runs }
}
