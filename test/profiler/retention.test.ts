// run-suite: shares a process
import { statSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { buildApp } from '../../app.js'
import { buildTestApp, postJson, testConfig } from '../helpers/app.js'
import { listProfiles } from '../helpers/profiler.js'
import { waitFor } from '../helpers/wait-for.js'

t.test('PROFILER_MAX_PROFILES: the oldest profiles go first', async t => {
  const app = await buildTestApp(t, { PROFILER_MAX_PROFILES: '5' })
  const tokens: string[] = []
  for (let i = 0; i < 12; i++) tokens.push((await app.inject({ url: `/page-${i}` })).headers['x-debug-token'] as string)
  await app.profileStore.flush()
  await app.profileStore.prune()
  const kept = await listProfiles(app)
  t.same(kept.map(p => p.token), tokens.slice(-5).reverse(), 'the five newest remain')
  t.equal(app.profileStore.count, 5)
  t.equal((await app.inject({ url: `/_profiler/${tokens[0] ?? ''}`, headers: { accept: 'application/json' } })).statusCode, 404, 'a pruned token is gone, panels and all')
})

t.test('PROFILER_MAX_AGE: profiles older than the bound go', async t => {
  const app = await buildTestApp(t, { PROFILER_MAX_AGE: '60s' })
  for (let i = 0; i < 4; i++) await app.inject({ url: `/page-${i}` })
  await app.profileStore.flush()
  await app.profileStore.prune()
  t.equal((await listProfiles(app)).length, 4, 'nothing is older than 60 s yet')
  await app.profileStore.prune(Date.now() + 61_000)
  t.equal((await listProfiles(app)).length, 0, 'seen from 61 s later, all are expired')
})

t.test('PROFILER_MAX_BYTES: the store file stays within 10% of the bound', async t => {
  const config = testConfig(t, { PROFILER_MAX_BYTES: '256KiB' })
  const app = await buildApp(config)
  const payload = { note: 'x'.repeat(6000) }
  let newest = ''
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < 40; i++) {
      newest = (await postJson(app, '/monitor/MonitorPooling', { ...payload, i })).headers['x-debug-token'] as string
    }
    await app.profileStore.flush()
    await app.profileStore.prune()
    const bytes = await app.profileStore.storeBytes()
    t.ok(bytes <= 256 * 1024 * 1.1, `round ${round}: ${bytes} bytes`)
  }
  const kept = await listProfiles(app)
  t.ok(kept.length > 5 && kept.length < 400, `${kept.length} of 400 profiles kept`)
  t.equal(kept[0]?.token, newest, 'the newest profile is kept')
  await app.close()
  const onDisk = statSync(config.profilerDatabasePath).size
  t.ok(onDisk <= 256 * 1024 * 1.1, `the file on disk: ${onDisk} bytes`)
})

t.test('pruning runs by itself in the background', async t => {
  const app = await buildApp(testConfig(t, { PROFILER_MAX_PROFILES: '3' }), { profiler: { retentionIntervalMs: 5 } })
  t.teardown(() => app.close())
  for (let i = 0; i < 10; i++) await app.inject({ url: `/page-${i}` })
  await app.profileStore.flush()
  await waitFor(() => app.profileStore.count <= 3, { timeoutMs: 5000, what: 'pruning down to 3 profiles' })
  t.equal(app.profileStore.count, 3)
  t.same((await listProfiles(app)).map(p => p.url), ['http://localhost/page-9', 'http://localhost/page-8', 'http://localhost/page-7'])
})

t.test('URLs and IPs that no profile uses any more leave the search tables', async t => {
  const config = testConfig(t, { PROFILER_MAX_PROFILES: '2' })
  const app = await buildApp(config)
  for (let i = 0; i < 6; i++) await app.inject({ url: `/page-${i}`, remoteAddress: `10.0.0.${i}` })
  await app.profileStore.flush()
  await app.profileStore.prune(Date.now() + 61_000)
  t.same((await listProfiles(app, 'url=page-')).map(p => p.url), ['http://localhost/page-5', 'http://localhost/page-4'])
  t.same((await listProfiles(app, 'url=page-1')), [], 'a pruned URL is not found')
  await app.close()
  const db = new BetterSqlite3(config.profilerDatabasePath, { readonly: true })
  t.teardown(() => db.close())
  t.same(db.prepare('SELECT url FROM profile_urls ORDER BY id').pluck().all(), ['http://localhost/page-4', 'http://localhost/page-5'])
  t.same(db.prepare('SELECT ip FROM profile_ips ORDER BY ip').pluck().all(), ['10.0.0.4', '10.0.0.5'])
})
