// The writer's CPU a stored profile, A against B (issue 38): the seed-like mix recorded once as the
// writer receives it (writer-record.ts), then replayed into fresh SQLite stores by both builds'
// writer services alone, in one child process a round, taking the batches in turn (writer-replay-child.ts).
// No server, no load generator and no request thread on the two cores: the writer's own work.
//   node dist-bench/bench/writer-replay.js <recording> <root A> <root B> [rounds] [--record=requests] [--otlp]
// Each root is a package folder with a dist/ built by its revision (npm run build:test).
// --otlp: what the OTLP export adds to the writer a profile (issue 39's bound: 10 µs), A against B:
// each build's writer with and without the export, sending to a loopback sink in this process.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { packageRoot } from '../paths.js'
import { startOtlpSink } from './otlp-sink.js'
import { median } from './stats.js'

const run = promisify(execFile)
const HERE = join(packageRoot, 'dist-bench', 'bench')
const args = process.argv.slice(2).filter(arg => !arg.startsWith('--'))
const recordArg = process.argv.find(arg => arg.startsWith('--record='))
const otlp = process.argv.includes('--otlp')
const [file = '', rootA = '', rootB = '', roundsArg = '5'] = args
const rounds = Number(roundsArg)

interface Replay { profileUs: number, written: number, bytesPerProfile: number, exportedSpans?: number, droppedSpans?: number, exportUs?: number }

/** One child: both builds (each with and without the export, with --otlp), taking the batches in turn. */
async function replay (sink: string | null): Promise<Replay[]> {
  const { stdout } = await run(process.execPath, [join(HERE, 'writer-replay-child.js'), file, '40', rootA, rootB, ...(sink === null ? [] : [`--otlp=${sink}`])], { maxBuffer: 1024 * 1024 })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as Replay[]
}

if (recordArg !== undefined || !existsSync(file)) {
  const { stdout } = await run(process.execPath, [join(HERE, 'writer-record.js'), file, recordArg?.split('=')[1] ?? '20000'], { maxBuffer: 1024 * 1024 })
  process.stdout.write(`recorded: ${stdout.trim()}\n`)
}

/** Each round's B - A as well: the rounds move together with the load, the difference less. */
function summary (what: string, a: number[], b: number[]): string {
  const differences = b.map((value, round) => value - (a[round] as number))
  return `${what}: median A ${median(a).toFixed(1)} µs, B ${median(b).toFixed(1)} µs a profile; B - A per round ${differences.map(d => d.toFixed(1)).join(', ')} (median ${median(differences).toFixed(1)})\n`
}

if (!otlp) {
  const runs: Record<'A' | 'B', Replay[]> = { A: [], B: [] }
  for (let round = 0; round < rounds; round++) {
    const [a, b] = await replay(null) as [Replay, Replay]
    runs.A.push(a)
    runs.B.push(b)
    process.stdout.write(`round ${round + 1}: A ${a.profileUs.toFixed(1)}, B ${b.profileUs.toFixed(1)} µs a profile (${a.written} and ${b.written} profiles; ${a.bytesPerProfile.toFixed(0)} and ${b.bytesPerProfile.toFixed(0)} B a profile on disk)\n`)
  }
  process.stdout.write(summary('the writer', runs.A.map(r => r.profileUs), runs.B.map(r => r.profileUs)))
} else {
  const sink = await startOtlpSink()
  const adds: Record<'A' | 'B', number[]> = { A: [], B: [] }
  const inside: Record<'A' | 'B', number[]> = { A: [], B: [] }
  try {
    for (let round = 0; round < rounds; round++) {
      const [a, aOtlp, b, bOtlp] = await replay(sink.url) as [Replay, Replay, Replay, Replay]
      adds.A.push(aOtlp.profileUs - a.profileUs)
      adds.B.push(bOtlp.profileUs - b.profileUs)
      inside.A.push(aOtlp.exportUs ?? Number.NaN)
      inside.B.push(bOtlp.exportUs ?? Number.NaN)
      const spans = (r: Replay): string => `${r.exportedSpans ?? 0} spans exported, ${r.droppedSpans ?? 0} dropped`
      process.stdout.write(`round ${round + 1}: A ${a.profileUs.toFixed(1)} -> ${aOtlp.profileUs.toFixed(1)} with export (+${(aOtlp.profileUs - a.profileUs).toFixed(1)}, ${(aOtlp.exportUs ?? Number.NaN).toFixed(1)} in offer and post; ${spans(aOtlp)}), B ${b.profileUs.toFixed(1)} -> ${bOtlp.profileUs.toFixed(1)} (+${(bOtlp.profileUs - b.profileUs).toFixed(1)}, ${(bOtlp.exportUs ?? Number.NaN).toFixed(1)} in offer and post; ${spans(bOtlp)}) µs a profile\n`)
    }
  } finally {
    await sink.close()
  }
  process.stdout.write(summary('the export adds (writer with it - without)', adds.A, adds.B))
  process.stdout.write(summary('inside the exporter (offer, post)', inside.A, inside.B))
  process.stdout.write(`sink: ${sink.requests()} requests, ${sink.bytes()} bytes\n`)
}
