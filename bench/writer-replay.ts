// The writer's CPU a stored profile, A against B (issue 38): the seed-like mix recorded once as the
// writer receives it (writer-record.ts), then replayed into fresh SQLite stores by both builds'
// writer services alone, in one child process a round, taking the batches in turn (writer-replay-child.ts).
// No server, no load generator and no request thread on the two cores: the writer's own work.
//   node dist-bench/bench/writer-replay.js <recording> <root A> <root B> [rounds] [--record=requests]
// Each root is a package folder with a dist/ built by its revision (npm run build:test).
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { packageRoot } from '../paths.js'
import { median } from './stats.js'

const run = promisify(execFile)
const HERE = join(packageRoot, 'dist-bench', 'bench')
const args = process.argv.slice(2).filter(arg => !arg.startsWith('--'))
const recordArg = process.argv.find(arg => arg.startsWith('--record='))
const [file = '', rootA = '', rootB = '', roundsArg = '5'] = args
const rounds = Number(roundsArg)

interface Replay { profileUs: number, written: number, bytesPerProfile: number }

/** One child: both builds, taking the batches in turn. */
async function replay (): Promise<[Replay, Replay]> {
  const { stdout } = await run(process.execPath, [join(HERE, 'writer-replay-child.js'), file, '40', rootA, rootB], { maxBuffer: 1024 * 1024 })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as [Replay, Replay]
}

if (recordArg !== undefined || !existsSync(file)) {
  const { stdout } = await run(process.execPath, [join(HERE, 'writer-record.js'), file, recordArg?.split('=')[1] ?? '20000'], { maxBuffer: 1024 * 1024 })
  process.stdout.write(`recorded: ${stdout.trim()}\n`)
}
const runs: Record<'A' | 'B', Replay[]> = { A: [], B: [] }
for (let round = 0; round < rounds; round++) {
  const [a, b] = await replay()
  runs.A.push(a)
  runs.B.push(b)
  process.stdout.write(`round ${round + 1}: A ${a.profileUs.toFixed(1)}, B ${b.profileUs.toFixed(1)} µs a profile (${a.written} and ${b.written} profiles; ${a.bytesPerProfile.toFixed(0)} and ${b.bytesPerProfile.toFixed(0)} B a profile on disk)\n`)
}
const medianUs = (mode: 'A' | 'B'): number => median(runs[mode].map(result => result.profileUs))
// Each round's B - A as well: the rounds move together with the load, the difference less.
const differences = runs.B.map((result, round) => result.profileUs - (runs.A[round] as Replay).profileUs)
process.stdout.write(`median A ${medianUs('A').toFixed(1)} µs, B ${medianUs('B').toFixed(1)} µs a profile; B - A per round ${differences.map(d => d.toFixed(1)).join(', ')} (median ${median(differences).toFixed(1)})\n`)
