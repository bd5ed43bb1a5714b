// A shortened soak (test/helpers/soak, docs/development.md, "Soak test"): a real server, scanner traffic, 1 MiB
// bodies, the business mix and the heaviest profiler pages, under a seeded schedule of store faults;
// every invariant of issue #20 checked. `npm run soak` runs it longer, with any seed.
import t from 'tap'
import { SOAK_BOUNDS } from '../helpers/soak/bounds.js'
import { runSoak, summaryTable } from '../helpers/soak/run-soak.js'

// The file's own timeout, not only the subtest's: tap gives each file 120 s (.taprc) and a
// subtest's longer timeout does not extend it. Called on the root test, setTimeout tells tap's
// runner the new bound. About 40 s on an idle machine; a loaded one (the server's start, the
// final drain) can take it past 120 s.
t.setTimeout(180_000)

t.test('soak on sqlite (seed 20, 25 s): the invariants hold under faults', { timeout: 180_000 }, async t => {
  const result = await runSoak({ engine: 'sqlite', seed: 20, durationMs: 25_000, ...SOAK_BOUNDS, log: line => { t.comment(line) } })
  t.comment(summaryTable(result))
  for (const invariant of result.invariants) t.ok(invariant.ok, `${invariant.name}: ${invariant.detail}`)
})
