// Two servers measured in the same stretch of time: both started, then the load (the same mix and
// rate) taken by one and the other in turns of a few seconds' requests (A B B A A B ..., each side's
// k-th turn the same requests), each server's CPU per request and thread counted over all its turns.
// What the machine does meanwhile (other processes, its cores' clocks, a loaded stretch) falls on
// both alike, and each turn runs at the section's rate with one server loaded, as in a run of its own. Their difference is what one server's setting costs:
// run after run it moves far less than the difference between two servers measured one after the
// other (issue 39: the OTLP export's rounds of 10 s in turn spread +5 to +31 µs a request, idle machine).
import { join } from 'node:path'
import { settledProfiles, type CpuRunSettings, type ServerCpu } from './cpu-run.js'
import { runLoad } from './load.js'
import { startBenchServer, type BenchServer } from './server-process.js'
import type { RunStore } from './stores.js'
import { cpuPerRequest, readThreadCpu } from './thread-cpu.js'

export interface PairSide { env: Record<string, string>, store: RunStore }

/** Seconds of one turn: long enough for the load to run at its rate, short enough for many turns a round. */
export const TURN_SECONDS = 2

/** Each side's turns in a round of `seconds` a side. */
export function turnsASide (seconds: number): number {
  return Math.max(1, Math.round(seconds / TURN_SECONDS))
}
/** Which side takes each turn, from the side that starts: A B B A, again (a drift over the round weighs on both alike). */
const TURNS = [0, 1, 1, 0]

/**
 * Both sides' CPU over their turns (turnsASide(settings.seconds) each), after a warm-up of each;
 * `first` is the side that starts. `quiet` resolves once whatever the servers send elsewhere after
 * their writes (the OTLP export's last request) has gone; it is awaited before each reading.
 */
export async function measureInTurns (settings: CpuRunSettings, sides: [PairSide, PairSide], first: 0 | 1, quiet: () => Promise<void>): Promise<[ServerCpu, ServerCpu]> {
  const servers: BenchServer[] = []
  try {
    for (const [index, side] of sides.entries()) {
      servers.push(await startBenchServer({ ...side.env, ...side.store.env, DATABASE_PATH: join(settings.dataDir, `turns-${index}.sqlite`) }, { logFile: join(settings.dataDir, `turns-${index}.log`) }))
    }
    const pair = servers as [BenchServer, BenchServer]
    for (const server of pair) await runLoad(server.url, 'seed-like', { seconds: settings.warmupSeconds, rate: settings.rate })
    const profiles = async (): Promise<number[]> => await Promise.all(sides.map(async side => await settledProfiles(side.store)))
    const profilesBefore = await profiles()
    await quiet()
    const before = pair.map(server => readThreadCpu(server.pid))
    const requests = [0, 0]
    // Each side's k-th turn sends the same requests as the other's.
    const taken = [0, 0]
    const turns = 2 * turnsASide(settings.seconds)
    for (let turn = 0; turn < turns; turn++) {
      const side = (TURNS[turn % TURNS.length] as number + first) % 2
      // A turn is a number of requests (not of seconds): both sides serve the same ones, as many.
      const load = await runLoad((pair[side] as BenchServer).url, 'seed-like', { amount: TURN_SECONDS * settings.rate, rate: settings.rate, seed: 7 + (taken[side] as number) })
      taken[side] = (taken[side] as number) + 1
      requests[side] = (requests[side] as number) + load.requests
    }
    // The writers' last batches (and the export's last request) are their work too.
    const profilesAfter = await profiles()
    await quiet()
    const after = pair.map(server => readThreadCpu(server.pid))
    return [0, 1].map(index => {
      const done = requests[index] as number
      const written = (profilesAfter[index] as number) - (profilesBefore[index] as number)
      const cpu = cpuPerRequest(before[index] as ReturnType<typeof readThreadCpu>, after[index] as ReturnType<typeof readThreadCpu>, done)
      return { ...cpu, requests: done, profiles: written, writerPerProfileUs: written > 0 ? cpu.writerUs * done / written : null, databaseUs: 0 }
    }) as [ServerCpu, ServerCpu]
  } finally {
    for (const server of servers) await server.stop()
  }
}
