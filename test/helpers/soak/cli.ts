// `npm run soak`: SOAK_ENGINE=sqlite|postgres SOAK_SECONDS=180 SOAK_SEED=<n> (printed, to replay).
import { runSoak, summaryTable } from './run-soak.js'
import { SOAK_BOUNDS } from './bounds.js'

const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))
const engine = process.env.SOAK_ENGINE === 'postgres' ? 'postgres' : 'sqlite'
const result = await runSoak({
  engine,
  seed,
  durationMs: Number(process.env.SOAK_SECONDS ?? 180) * 1000,
  ...SOAK_BOUNDS,
  log: line => { console.log(line) }
})
console.log(`\nsoak summary (engine=${engine} seed=${seed}; replay with SOAK_SEED=${seed})`)
console.log(summaryTable(result))
console.log(JSON.stringify(result.counts))
const failed = result.invariants.filter(i => !i.ok)
if (failed.length > 0) {
  console.error(`violated: ${failed.map(i => i.name).join(', ')}`)
  process.exitCode = 1
}
