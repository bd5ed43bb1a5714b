// run-suite: shares a process

// The timeline's hook sites are stored once per process, with the per-process panels (writer/
// process-panels.ts): each profile's runs name a place in its process row's sites. On both engines:
// two apps sharing one store and a third after they closed (a restart) meet the sites in other
// orders, so one place names different sites in their rows, and every profile still reads as its
// own app showed it; a site met later makes a new row, and retention keeps a row while a profile
// names it and deletes it with the last of them.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { PROCESS_SITES } from '../../plugins/profiler/panels/timeline/stored-form-constants.js'
import type { StoredSite } from '../../plugins/profiler/panels/timeline/schema.js'
import { buildTestApp } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { queryOn } from '../helpers/postgres.js'
import { profileJson } from '../helpers/profiler.js'
import { sqlitePanels } from '../helpers/sqlite-panels.js'
import { storeEngines } from '../helpers/store-engines.js'
import BetterSqlite3 from 'better-sqlite3'

const engines = storeEngines(t)

/** Each stored profile's token and the process row it names, and every process row's sites, read from the store. */
async function storedRows (env: Record<string, string>): Promise<{ named: Map<string, string>, sites: Map<string, StoredSite[]> }> {
  let named: Array<{ token: string, key: string }>
  let rows: Array<{ key: string, panels: string }>
  const url = env.PROFILER_DATABASE_URL
  if (url !== undefined) {
    named = await queryOn(url, 'SELECT token, process_key AS key FROM profile_data') as typeof named
    rows = await queryOn(url, 'SELECT key, panels FROM profile_processes') as typeof rows
  } else {
    const db = new BetterSqlite3(env.PROFILER_DATABASE_PATH ?? '', { readonly: true })
    try {
      named = sqlitePanels(db).map(row => ({ token: row.token, key: row.processKey ?? '' }))
      rows = db.prepare('SELECT key, panels FROM profile_processes').all() as typeof rows
    } finally {
      db.close()
    }
  }
  return {
    named: new Map(named.map(row => [row.token, row.key])),
    sites: new Map(rows.map(row => [row.key, (JSON.parse(row.panels) as Record<string, StoredSite[]>)[PROCESS_SITES] ?? []]))
  }
}

const ADVISOR = { method: 'POST' as const, url: '/ccenter/getConseillerByCode', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' }
const MISSING = { method: 'GET' as const, url: '/robots.txt' }
const POLL = { method: 'POST' as const, url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1002"}' }

/** Sends `requests` to `app` in turn and returns each profile's timeline as the app shows it once stored, by token. */
async function shownTimelines (app: FastifyInstance, requests: Array<typeof ADVISOR | typeof MISSING>): Promise<Map<string, unknown>> {
  const tokens: string[] = []
  for (const request of requests) tokens.push(tokenOf(await app.inject(request)))
  await app.profileStore.flush()
  const shown = new Map<string, unknown>()
  for (const token of tokens) shown.set(token, (await profileJson(app, token)).panels.timeline)
  return shown
}

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    t.test('apps sharing a store, and one after a restart, number their sites apart: every profile reads as its app showed it', async t => {
      const env = await engine.fresh(t)
      const [a, b] = await Promise.all([buildTestApp(t, env), buildTestApp(t, env)])
      const shown = new Map([
        ...await shownTimelines(a, [ADVISOR, MISSING, ADVISOR]),
        ...await shownTimelines(b, [MISSING, ADVISOR, MISSING])
      ])
      await Promise.all([a.close(), b.close()])
      const c = await buildTestApp(t, env)
      for (const [token, timeline] of await shownTimelines(c, [POLL, MISSING])) shown.set(token, timeline)

      const { named, sites } = await storedRows(env)
      t.equal(named.size, 8, 'every profile stored')
      const keys = [...named.values()]
      t.ok(keys.every(key => (sites.get(key)?.length ?? 0) > 0), 'each profile names a row holding sites')
      // The same place names another site in another app's row: a place alone would be ambiguous.
      const rows = [...sites.values()]
      t.ok(rows.some(one => rows.some(other => one.some((site, place) => other[place] !== undefined && other[place]?.join('\n') !== site.join('\n')))),
        'one place, different sites in two rows')
      for (const [token, timeline] of shown) {
        const read = (await profileJson(c, token)).panels
        t.equal(JSON.stringify(read.timeline), JSON.stringify(timeline), `${token}: the timeline as its app showed it, key for key`)
        t.notOk(PROCESS_SITES in read, 'the sites are no panel')
      }
    })

    t.test('a site met later makes a new row; retention keeps a row while a profile names it, and deletes it with the last', async t => {
      const env = await engine.fresh(t)
      const app = await buildTestApp(t, { ...env, PROFILER_MAX_PROFILES: '3' })
      const first = await shownTimelines(app, [MISSING])
      const later = await shownTimelines(app, [ADVISOR])
      const before = await storedRows(env)
      const [firstToken] = [...first.keys()]
      const [laterToken] = [...later.keys()]
      const firstKey = before.named.get(firstToken ?? '') ?? ''
      const laterKey = before.named.get(laterToken ?? '') ?? ''
      t.not(firstKey, laterKey, 'the advisor lookup met new sites: a new row')
      t.same(before.sites.get(laterKey)?.slice(0, before.sites.get(firstKey)?.length), before.sites.get(firstKey), 'the new row\'s sites begin with the first\'s')
      t.equal(before.sites.size, 2)

      // A third profile of the newer row: within the bound (3), nothing goes, both rows stay.
      for (const [token, timeline] of await shownTimelines(app, [ADVISOR])) later.set(token, timeline)
      await app.profileStore.prune()
      t.same([...(await storedRows(env)).sites.keys()].sort(), [firstKey, laterKey].sort(), 'the first row stays while its profile does')
      t.equal(JSON.stringify((await profileJson(app, firstToken ?? '')).panels.timeline), JSON.stringify(first.get(firstToken ?? '')), 'and that profile reads as shown')

      // One more: the bound takes the first profile, and its row with it.
      for (const [token, timeline] of await shownTimelines(app, [ADVISOR])) later.set(token, timeline)
      await app.profileStore.prune()
      const after = await storedRows(env)
      t.notOk(after.named.has(firstToken ?? ''), 'the first profile went')
      t.same([...after.sites.keys()], [laterKey], 'its row went with it; the row the others name stays')
      for (const [token, timeline] of later) {
        if (!after.named.has(token)) continue
        t.equal(JSON.stringify((await profileJson(app, token)).panels.timeline), JSON.stringify(timeline), `${token}: read as shown`)
      }
    })
  })
}
