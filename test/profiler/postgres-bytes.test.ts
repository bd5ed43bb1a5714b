// run-suite: shares a process
// The byte bound on PostgreSQL under scanner traffic (issue #20): the current time partition is
// never dropped, so its oldest rows must go and their space be reused.
import pg from 'pg'
import t from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { needsPostgres, SCHEMA_BYTES_SQL, startPostgres } from '../helpers/postgres.js'
import { scannerPath } from '../helpers/scanner.js'

const BOUND = 8 * 1024 * 1024
const REQUESTS = 8000
const SAMPLE_EVERY = 100

if (needsPostgres(t)) {
  t.test('distinct-URL scanner traffic against a byte bound: the bytes stay within 10% of the bound, the profiles above half of what fits', async t => {
    const cluster = await startPostgres(t)
    const url = await cluster.createDatabase('bytes')
    const app = await buildApp(testConfig(t, { PROFILER_DATABASE_URL: url, PROFILER_MAX_BYTES: String(BOUND) }))
    const sampler = new pg.Client({ connectionString: url })
    await sampler.connect()
    t.teardown(async () => {
      await sampler.end()
      await app.close()
    })
    const sample = async (): Promise<{ bytes: number, profiles: number }> => {
      const bytes = Number((await sampler.query(SCHEMA_BYTES_SQL)).rows[0].bytes)
      const profiles = Number((await sampler.query('SELECT count(*)::bigint AS n FROM profiles')).rows[0].n)
      return { bytes, profiles }
    }
    let stored = 0
    let pruned = false
    let peakProfiles = 0
    let lowAfterPruning = Infinity
    let maxBytes = 0
    let last = { bytes: 0, profiles: 0 }
    const over: string[] = []
    for (let i = 0; i < REQUESTS; i++) {
      await app.inject({ url: scannerPath(i) })
      if ((i + 1) % SAMPLE_EVERY !== 0) continue
      const now = await sample()
      peakProfiles = Math.max(peakProfiles, now.profiles)
      // Sampled as the soak does, while the traffic goes on (no flush, no prune call: the background's work).
      // Pruning ran once the store holds fewer profiles than it ever did.
      pruned ||= now.profiles < stored
      stored = Math.max(stored, now.profiles)
      maxBytes = Math.max(maxBytes, now.bytes)
      if (now.bytes > BOUND * 1.1) over.push(`after ${i + 1} requests: ${now.bytes} bytes, ${now.profiles} profiles`)
      if (pruned) lowAfterPruning = Math.min(lowAfterPruning, now.profiles)
      if (process.env.BYTES_TRACE !== undefined) t.comment(`${i + 1}: ${now.profiles} profiles, ${now.bytes} bytes`)
      last = now
    }
    // What fits: the bound over a profile's share of the bytes once the store is full (the last
    // sample). The peak count is no measure of it: before pruning catches up the count overshoots
    // what fits (1,583 profiles for 1,199 once the logs and db panels made each profile larger).
    const fits = Math.round(BOUND / (last.bytes / last.profiles))
    t.comment(`last sample: ${last.bytes} bytes, ${last.profiles} profiles (${fits} fit the bound at that size), peak ${peakProfiles}`)
    t.ok(pruned, `pruning ran (peak ${peakProfiles} profiles)`)
    t.same(over.slice(0, 10), [], `the bytes stayed within 110% of ${BOUND} (max ${maxBytes}, ${over.length} samples over)`)
    t.ok(lowAfterPruning >= fits / 2, `the profiles never fell below half of what fits: low ${lowAfterPruning}, ${fits} fit`)
  })
}
