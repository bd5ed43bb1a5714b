// run-suite: shares a process
// SQLite stores a batch's panels as one compressed block (migration 016): what a user sees is the
// same whether a profile's panels are in a block or, written by the release before, in a
// profile_data row of their own; a block leaves with the last of its profiles; the count kept by
// the writer (no trigger any more) stays the rows.
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../plugins/profiler/profile.js'
import { buildTestApp, postJson } from '../helpers/app.js'
import { freshDir } from '../helpers/dirs.js'
import { profileJson } from '../helpers/profiler.js'
import { sqlitePanels, storeAsBeforeBlocks } from '../helpers/sqlite-panels.js'
import { waitFor } from '../helpers/wait-for.js'

/** A stored profile's record: the n-th millisecond after `startMs`, with `panels` as its panels. */
function record (startMs: number, n: number, token: string, panels: unknown): ProfileRecord {
  return {
    id: (startMs + n) * ID_SLOTS_PER_MS,
    token,
    parentToken: null,
    type: 'request',
    ip: '127.0.0.1',
    method: 'GET',
    url: `http://localhost/n/${n}`,
    statusCode: 200,
    durationMs: 1,
    route: null,
    panels: JSON.stringify(panels)
  }
}

function tableCounts (path: string): { profiles: number, counted: number, blocks: number, data: number, processRows: number } {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    const one = (sql: string): number => db.prepare(sql).pluck().get() as number
    return {
      profiles: one('SELECT count(*) FROM profiles'),
      counted: one('SELECT profiles FROM profile_counts'),
      blocks: one('SELECT count(*) FROM profile_blocks'),
      data: one('SELECT count(*) FROM profile_data'),
      processRows: one('SELECT count(*) FROM profile_processes')
    }
  } finally {
    db.close()
  }
}

t.test('profiles stored before blocks (a profile_data row each) show as they did, beside profiles in blocks', async t => {
  const env = { PROFILER_DATABASE_PATH: join(freshDir(t, 'blocks-'), 'profiler.sqlite') }
  // The three requests are one batch whatever the machine's pace: written when the first read flushes.
  const first = await buildTestApp(t, env, undefined, { profiler: { store: { flushDelayMs: 600_000 } } })
  const tokens = [
    (await postJson(first, '/ccenter/getConseillerByCode', { code: 'ADV1001', password: 'hunter2' })).headers['x-debug-token'] as string,
    (await first.inject({ method: 'POST', url: '/monitor/MonitorPooling?api_key=k1', headers: { 'content-type': 'application/json' }, payload: '{"code":' })).headers['x-debug-token'] as string,
    (await first.inject({ url: '/wp-login.php', headers: { authorization: 'Bearer abcdefgh' } })).headers['x-debug-token'] as string
  ]
  const shown = new Map<string, Record<string, any>>()
  for (const token of tokens) shown.set(token, await profileJson(first, token))
  await first.close()
  // A batch's profiles are blocked by the process row they name; a hook site met for the first time
  // makes a new row (the timeline's sites are kept with the process: process-panels.ts).
  const { blocks, processRows } = tableCounts(env.PROFILER_DATABASE_PATH)
  t.ok(blocks >= 1 && blocks <= tokens.length, `one batch: ${blocks} block(s)`)
  t.equal(blocks, processRows, 'one batch, one block a process row its profiles name')

  t.equal(storeAsBeforeBlocks(env.PROFILER_DATABASE_PATH), 3)
  t.match(tableCounts(env.PROFILER_DATABASE_PATH), { profiles: 3, counted: 3, blocks: 0, data: 3 })
  const second = await buildTestApp(t, env)
  const added = (await postJson(second, '/ccenter/getConseillerByCode', { code: 'ADV1002' })).headers['x-debug-token'] as string
  for (const token of tokens) {
    const again = await profileJson(second, token)
    const before = shown.get(token) as Record<string, any>
    t.same(again.panels, before.panels, `${before.method as string} ${before.url as string}: the same panels`)
    t.match(again, { token, method: before.method, url: before.url, status: before.status, durationMs: before.durationMs })
  }
  t.match(await profileJson(second, added), { token: added, status: 200, panels: { request: { body: { code: 'ADV1002' } } } }, 'and the new profile, from its block')
  const html = await second.inject({ url: `/_profiler/${tokens[0] as string}?panel=request` })
  t.equal(html.statusCode, 200)
  t.match(html.body, 'ADV1001', 'its page too')
  await second.profileStore.flush()
  t.match(tableCounts(env.PROFILER_DATABASE_PATH), { profiles: 4, counted: 4, blocks: 1, data: 3 })
})

t.test('a block leaves with the last of its profiles; the count is the rows', async t => {
  const path = join(freshDir(t, 'blocks-'), 'profiler.sqlite')
  const limits = { maxProfiles: 1_000, maxAgeMs: 86_400_000, maxBytes: 1024 ** 3, statsMaxAgeMs: 30 * 86_400_000 }
  const writer = await openStoreWriter({ engine: 'sqlite', path }, 'A', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
  t.teardown(async () => { await writer.close() })
  const startMs = Date.now() - 60_000
  const profile = (n: number, token = (0xc00000 + n).toString(16)): ProfileRecord =>
    record(startMs, n, token, { request: { note: `profile ${n} ${'é'.repeat(n)}` } })
  // Four batches of three; the third reuses a token of the first (refused, its bytes stay in its block).
  for (let batch = 0; batch < 4; batch++) {
    const records = [0, 1, 2].map(i => profile(batch * 3 + i))
    if (batch === 2) records[1] = profile(7, (0xc00000).toString(16))
    const result = await writer.write(records)
    t.equal(result.written, batch === 2 ? 2 : 3)
  }
  t.match(tableCounts(path), { profiles: 11, counted: 11, blocks: 4, data: 0 })
  const db = new BetterSqlite3(path, { readonly: true })
  t.teardown(() => { db.close() })
  t.same(sqlitePanels(db).map(row => JSON.parse(row.panels).request.note as string), [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11].map(n => `profile ${n} ${'é'.repeat(n)}`),
    'every profile\'s own text, non-ASCII included, in id order')

  const pruneTo = async (maxProfiles: number): Promise<void> => {
    const pruning = await openStoreWriter({ engine: 'sqlite', path }, 'A', { ...limits, maxProfiles }, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
    await pruning.prune(Date.now())
    await pruning.close()
  }
  // Down to 7 profiles: the first batch and one profile of the second go; the second's block stays for its two others.
  await pruneTo(7)
  t.match(tableCounts(path), { profiles: 7, counted: 7, blocks: 3 })
  t.equal(db.prepare('SELECT count(*) FROM profiles p LEFT JOIN profile_blocks b ON b.id = p.block_id WHERE b.id IS NULL').pluck().get(), 0, 'every profile left has its block')
  // Down to 3: the third batch's block goes with its last stored profile, though its refused one had no row.
  await pruneTo(3)
  t.match(tableCounts(path), { profiles: 3, counted: 3, blocks: 1 }, 'only the last batch\'s block is left')
})

t.test('a batch is cut into blocks of at most 128 profiles and 512 KiB of panels, so that reading one profile decodes little', async t => {
  const path = join(freshDir(t, 'blocks-'), 'profiler.sqlite')
  const limits = { maxProfiles: 1_000, maxAgeMs: 86_400_000, maxBytes: 1024 ** 3, statsMaxAgeMs: 30 * 86_400_000 }
  const writer = await openStoreWriter({ engine: 'sqlite', path }, 'A', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
  t.teardown(async () => { await writer.close() })
  const startMs = Date.now() - 60_000
  const profile = (n: number, panelChars: number): ProfileRecord =>
    record(startMs, n, (0xd00000 + n).toString(16), { request: { n, note: 'x'.repeat(panelChars) } })
  t.equal((await writer.write(Array.from({ length: 300 }, (_, n) => profile(n, 100)))).written, 300)
  t.match(tableCounts(path), { profiles: 300, blocks: 3 }, '128 + 128 + 44')
  t.equal((await writer.write([300, 301, 302].map(n => profile(n, 300 * 1024)))).written, 3)
  t.match(tableCounts(path), { profiles: 303, blocks: 6 }, 'three panels of 300 KB: a block each')
  const db = new BetterSqlite3(path, { readonly: true })
  t.teardown(() => { db.close() })
  t.same(sqlitePanels(db).map(row => JSON.parse(row.panels).request.n as number), Array.from({ length: 303 }, (_, n) => n), 'each profile its own panels')
})

t.test('a block whose bytes are corrupt: that profile\'s page says the store is unavailable (503), the others still show', async t => {
  const env = { PROFILER_DATABASE_PATH: join(freshDir(t, 'blocks-'), 'profiler.sqlite') }
  const app = await buildTestApp(t, env)
  const first = (await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' })).headers['x-debug-token'] as string
  await app.profileStore.flush()
  const second = (await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1002' })).headers['x-debug-token'] as string
  await app.profileStore.flush()
  const db = new BetterSqlite3(env.PROFILER_DATABASE_PATH)
  try {
    // The first block's bytes garbled (the file's pages intact: SQLite sees nothing wrong), then a format byte no release wrote.
    db.prepare('UPDATE profile_blocks SET panels = x\'01deadbeefdeadbeef\' WHERE id = (SELECT min(id) FROM profile_blocks)').run()
  } finally {
    db.close()
  }
  const garbled = await app.inject({ url: `/_profiler/${first}`, headers: { accept: 'application/json' } })
  t.equal(garbled.statusCode, 503)
  t.match(garbled.json().message, /^The profile store is unavailable: a block of panels cannot be decompressed/)
  await waitFor(async () => (await app.inject({ url: `/_profiler/${second}`, headers: { accept: 'application/json' } })).statusCode === 200, { what: 'the reader reopened, the other profile shown' })
  const unknown = new BetterSqlite3(env.PROFILER_DATABASE_PATH)
  try {
    unknown.prepare('UPDATE profile_blocks SET panels = x\'ff00\' WHERE id = (SELECT min(id) FROM profile_blocks)').run()
  } finally {
    unknown.close()
  }
  await waitFor(async () => {
    const res = await app.inject({ url: `/_profiler/${first}`, headers: { accept: 'application/json' } })
    return res.statusCode === 503 && /an unknown format \(255\)/.test(String(res.json().message))
  }, { what: 'the unknown format said' })
})
