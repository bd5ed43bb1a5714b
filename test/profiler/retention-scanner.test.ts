// run-suite: shares a process
import { statSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { scannerPath } from '../helpers/scanner.js'

// Scanner traffic (issue #20): distinct 200-character paths, each a new URL in the trigram index.
// Scaled from the 50,000-request, 5 MiB run: enough URLs that the index's deletions alone once
// exceeded the bound several times over. A profile takes ~2.1 KiB here (~680 fit in 2 MiB): the
// burst writes ~4 times the bound, and the steady traffic turns the kept profiles over twice, in six rounds.
const BOUND = 2 * 1024 * 1024
const REQUESTS = 4_000
const STEADY = 1_500
const ROUND = 250

function fileCounts (path: string): { profiles: number, urls: number, usedBytes: number } {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    const pages = db.pragma('page_count', { simple: true }) as number
    const free = db.pragma('freelist_count', { simple: true }) as number
    const size = db.pragma('page_size', { simple: true }) as number
    return {
      profiles: db.prepare('SELECT count(*) FROM profiles').pluck().get() as number,
      urls: db.prepare('SELECT count(*) FROM profile_urls').pluck().get() as number,
      usedBytes: (pages - free) * size
    }
  } finally {
    db.close()
  }
}

t.test('scanner traffic against a byte bound: the file stays within 10%, profiles stay', async t => {
  const config = testConfig(t, { PROFILER_MAX_BYTES: String(BOUND) })
  // The background loop is slowed down, as a busy writer thread is during a burst: garbage piles up first.
  const app = await buildApp(config, { profiler: { retentionIntervalMs: 60_000 } })
  t.teardown(() => app.close())
  for (let i = 0; i < REQUESTS; i++) await app.inject({ url: scannerPath(REQUESTS + i) })
  await app.profileStore.flush()
  await app.profileStore.prune()
  const afterBurst = fileCounts(config.profilerDatabasePath)
  t.ok(afterBurst.profiles >= 100, `after the burst and one prune: ${afterBurst.profiles} profiles, ${afterBurst.usedBytes} bytes`)
  let peakProfiles = 0
  let lowProfiles = Infinity
  let newest = ''
  for (let i = 0; i < STEADY; i++) {
    newest = (await app.inject({ url: scannerPath(i) })).headers['x-debug-token'] as string
    if ((i + 1) % ROUND !== 0) continue
    await app.profileStore.flush()
    await app.profileStore.prune()
    const bytes = await app.profileStore.storeBytes()
    const counts = fileCounts(config.profilerDatabasePath)
    peakProfiles = Math.max(peakProfiles, counts.profiles)
    lowProfiles = Math.min(lowProfiles, counts.profiles)
    t.ok(bytes <= BOUND * 1.1, `after ${i + 1} requests: ${bytes} bytes used, ${counts.profiles} profiles, ${counts.urls} URLs`)
  }
  const counts = fileCounts(config.profilerDatabasePath)
  t.ok(lowProfiles >= Math.max(100, peakProfiles / 2), `profiles never fell below a fraction of what fits: low ${lowProfiles}, peak ${peakProfiles}`)
  t.ok(counts.profiles > 0 && counts.urls <= counts.profiles, `URLs leave with their profiles: ${counts.urls} URLs for ${counts.profiles} profiles`)
  t.equal((await app.inject({ url: `/_profiler/${newest}`, headers: { accept: 'application/json' } })).statusCode, 200, 'the newest profile is kept')
  await app.close()
  const onDisk = statSync(config.profilerDatabasePath).size
  t.ok(onDisk <= BOUND * 1.1, `the file on disk: ${onDisk} bytes`)
})

t.test('scanner burst of twice a count bound of 1,000: the bound holds right after the burst', async t => {
  const config = testConfig(t, { PROFILER_MAX_PROFILES: '1000' })
  const app = await buildApp(config, { profiler: { retentionIntervalMs: 60_000 } })
  t.teardown(() => app.close())
  for (let i = 0; i < 2000; i++) await app.inject({ url: scannerPath(i) })
  await app.profileStore.flush()
  const counts = fileCounts(config.profilerDatabasePath)
  t.ok(counts.profiles <= 1000 * 1.1, `${counts.profiles} profiles right after the burst (no prune call)`)
  t.ok(counts.profiles >= 500, 'at least half of the bound is kept')
})

t.test('two apps sharing one SQLite profile file: the count bound holds on what the file holds', async t => {
  const first = testConfig(t, { PROFILER_MAX_PROFILES: '100' })
  const second = { ...testConfig(t, { PROFILER_MAX_PROFILES: '100' }), profilerDatabasePath: first.profilerDatabasePath }
  const apps = [await buildApp(first, { profiler: { retentionIntervalMs: 60_000 } }), await buildApp(second, { profiler: { retentionIntervalMs: 60_000 } })]
  t.teardown(async () => { for (const app of apps) await app.close() })
  for (let i = 0; i < 300; i++) {
    const app = apps[i % 2]
    await app?.inject({ url: scannerPath(i) })
    if (i % 50 === 49) for (const each of apps) await each.profileStore.flush()
  }
  for (const app of apps) await app.profileStore.flush()
  const counts = fileCounts(first.profilerDatabasePath)
  t.ok(counts.profiles <= 110, `${counts.profiles} profiles in the shared file (bound 100)`)
  t.ok(counts.profiles >= 50, 'at least half of the bound is kept')
})
