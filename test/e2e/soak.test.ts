// A shortened soak (test/helpers/soak, docs/development.md, "Soak test"): a real server, scanner traffic, 1 MiB
// bodies, the business mix and the heaviest profiler pages, under a seeded schedule of store faults;
// every invariant of issue #20 checked. `npm run soak` runs it longer, with any seed.
import t from 'tap'
import { SOAK_BOUNDS } from '../helpers/soak/bounds.js'
import { runSoak, summaryTable } from '../helpers/soak/run-soak.js'

// The file's own timeout, not only the subtest's: tap gives each file 120 s (.taprc) and a
// subtest's longer timeout does not extend it. Called on the root test, setTimeout tells tap's
// runner the new bound. About 35 s on an idle machine; a loaded one (the server's start, the
// final drain) can take it past 120 s.
t.setTimeout(180_000)

// The poll's p99 here is a stall detector, not a latency figure: beside CI's CPU hog, with three
// test files at a time, it reached 790, 958 and (with other suites running beside CI as well) 2,296
// ms with nothing wrong. A request thread that waited on the store would wait out the faults, which
// cover 11 of the 20 s (two locks of 3.8 s around a full disk of 3.6 s): its p99 would pass 3 s. The
// documented 500 ms is `npm run soak`'s, on a machine of its own.
//
// Seed 323 at 20 s: the schedule (faultSchedule) has both SQLite faults, and its two locks last
// longer than the p99 bound, as seed 20's at 25 s did (locks of 3.9 and 4.4 s, a full disk of 3.8 s),
// in a fifth less time: the traffic runs flat out all along, so the run's CPU is about its length.
const POLL_P99_IN_THE_SUITE_MS = 3000

// "Never below half once full" says nothing about a store that never fills: at the documented 2,000
// profiles a loaded machine's 20 s filled it only to 1,217. Here the bound is 1,000, and the run
// checks that the store did reach it.
const MAX_PROFILES_IN_THE_SUITE = 1000

t.test('soak on sqlite (seed 323, 20 s): the invariants hold under faults', { timeout: 180_000 }, async t => {
  const result = await runSoak({ engine: 'sqlite', seed: 323, durationMs: 20_000, ...SOAK_BOUNDS, maxProfiles: MAX_PROFILES_IN_THE_SUITE, maxPollP99Ms: POLL_P99_IN_THE_SUITE_MS, log: line => { t.comment(line) } })
  t.comment(summaryTable(result))
  for (const invariant of result.invariants) t.ok(invariant.ok, `${invariant.name}: ${invariant.detail}`)
  t.ok((result.counts.maxStoreProfiles ?? 0) >= MAX_PROFILES_IN_THE_SUITE, `the store filled (${String(result.counts.maxStoreProfiles)} of ${MAX_PROFILES_IN_THE_SUITE} profiles), so "never below half" was put to the test`)
})
