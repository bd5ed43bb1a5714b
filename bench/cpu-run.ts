// One measured server run of the CPU sections (cpu.ts, cpu-before-after.ts, cpu-sampling.ts): a
// server on a store, a warm-up, then the seed-like mix at a fixed rate well below saturation (so
// that every mode does the same work); the server's CPU per request and thread, and the profiles
// the store gained over the measured part.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { runLoad } from './load.js'
import { startBenchServer, type BenchServerOptions } from './server-process.js'
import { median, round } from './stats.js'
import type { RunStore } from './stores.js'
import { cpuPerRequest, readThreadCpu, type CpuPerRequest } from './thread-cpu.js'

export interface CpuRunSettings {
  dataDir: string
  seconds: number
  warmupSeconds: number
  /** Requests per second offered in every mode. */
  rate: number
}

export interface ServerCpu extends CpuPerRequest {
  requests: number
  /** Profiles written over the measured part (fewer than requests when sampling). */
  profiles: number
  /** The writer thread's CPU over those profiles (it also writes the statistics-only records of the others); null without profiles. */
  writerPerProfileUs: number | null
  /** The database server's CPU per request over the same time (given `databaseCpuMs`; 0 otherwise). */
  databaseUs: number
}

/**
 * The store's profile count once the writer has caught up: unchanged over two reads 100 ms apart
 * (twice the writer's flush delay), so that the profiles counted and the writer's CPU read belong
 * to the same requests.
 */
export async function settledProfiles (store: RunStore): Promise<number> {
  let last = await store.profiles()
  for (let i = 0; i < 300; i++) {
    await new Promise(resolve => setTimeout(resolve, 100))
    const now = await store.profiles()
    if (now === last) return now
    last = now
  }
  throw new Error('the store\'s profile count was still moving 30 s after the load')
}

/**
 * The server's CPU, per thread; a PostgreSQL store's own server processes are counted apart, when
 * `databaseCpuMs` reads them (bench/cluster-cpu.ts).
 */
export async function measureServerCpu (settings: CpuRunSettings, env: Record<string, string>, store: RunStore, options: BenchServerOptions = {}, databaseCpuMs: () => number = () => 0): Promise<ServerCpu> {
  const logFile = join(settings.dataDir, 'cpu-run.log')
  rmSync(logFile, { force: true })
  const server = await startBenchServer({ ...env, ...store.env }, { logFile, ...options })
  try {
    await runLoad(server.url, 'seed-like', { seconds: settings.warmupSeconds, rate: settings.rate })
    const profilesBefore = await settledProfiles(store)
    const before = readThreadCpu(server.pid)
    const databaseBefore = databaseCpuMs()
    const load = await runLoad(server.url, 'seed-like', { seconds: settings.seconds, rate: settings.rate })
    // The writer's last batches of the run are its work too.
    const profiles = await settledProfiles(store) - profilesBefore
    const cpu = cpuPerRequest(before, readThreadCpu(server.pid), load.requests)
    const databaseUs = (databaseCpuMs() - databaseBefore) * 1000 / load.requests
    return { ...cpu, requests: load.requests, profiles, writerPerProfileUs: profiles > 0 ? cpu.writerUs * load.requests / profiles : null, databaseUs }
  } finally {
    await server.stop()
  }
}

export interface MedianCpu extends CpuPerRequest {
  writerPerProfileUs: number | null
  databaseUs: number
  /** Profiles written per request (1 at PROFILER_SAMPLE=1). */
  keptShare: number
}

export function medianOf (runs: ServerCpu[]): MedianCpu {
  const m = (values: number[]): number => round(median(values), 1)
  const perProfile = runs.flatMap(run => run.writerPerProfileUs === null ? [] : [run.writerPerProfileUs])
  return {
    requestUs: m(runs.map(run => run.requestUs)),
    writerUs: m(runs.map(run => run.writerUs)),
    restUs: m(runs.map(run => run.restUs)),
    totalUs: m(runs.map(run => run.totalUs)),
    writerPerProfileUs: perProfile.length === 0 ? null : m(perProfile),
    databaseUs: m(runs.map(run => run.databaseUs)),
    keptShare: round(median(runs.map(run => run.profiles / Math.max(1, run.requests))), 4)
  }
}

/**
 * `rounds` rounds of every mode, each round in a different order (so that no mode always runs on
 * a warmer machine); the runs of each mode.
 */
export async function interleavedRounds<Mode extends string, Run = ServerCpu> (modes: readonly Mode[], rounds: number, measure: (mode: Mode) => Promise<Run>): Promise<Record<Mode, Run[]>> {
  const runs = Object.fromEntries(modes.map(mode => [mode, [] as Run[]])) as Record<Mode, Run[]>
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < modes.length; i++) {
      const mode = modes[(i + round) % modes.length] as Mode
      runs[mode].push(await measure(mode))
    }
  }
  return runs
}

/** A figure for a table: µs with one decimal, '-' when there is none. */
export const us = (value: number | null): string => value === null ? '-' : value.toFixed(1)

/** A difference with its sign. */
export const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`
