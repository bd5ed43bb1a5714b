// A shortened soak (test/helpers/soak): fixed seed, ~25 s, SQLite and (when installed) PostgreSQL.
// Fails on the code before issue #20's fixes; see the README's "Soak test".
import t from 'tap'
import { postgresBinDir } from '../helpers/postgres.js'
import { SOAK_BOUNDS } from '../helpers/soak/bounds.js'
import { runSoak, summaryTable } from '../helpers/soak/run-soak.js'

for (const engine of ['sqlite', 'postgres'] as const) {
  t.test(`soak on ${engine}: the invariants hold under faults`, { timeout: 120_000, skip: engine === 'postgres' && postgresBinDir() === null ? 'PostgreSQL is not installed' : false }, async t => {
    const result = await runSoak({ engine, seed: 20, durationMs: 25_000, ...SOAK_BOUNDS, log: line => { t.comment(line) } })
    t.comment(summaryTable(result))
    for (const invariant of result.invariants) t.ok(invariant.ok, `${invariant.name}: ${invariant.detail}`)
  })
}
