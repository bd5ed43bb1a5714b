// run-suite: shares a process
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profileJson } from '../helpers/profiler.js'
import { PROCESS_SITES } from '../../plugins/profiler/panels/timeline/stored-form-constants.js'
import { sqlitePanels, sqlitePanelsOf } from '../helpers/sqlite-panels.js'
import { STORED_BEFORE } from '../helpers/stored-before.js'

const storedPanels = (app: { config: { profilerDatabasePath: string } }, token: string): Record<string, any> => {
  const db = new BetterSqlite3(app.config.profilerDatabasePath, { readonly: true })
  try {
    return sqlitePanelsOf(db, token) as Record<string, any>
  } finally {
    db.close()
  }
}

/** The per-process row a profile names: its key and panels. */
const processOf = (app: { config: { profilerDatabasePath: string } }, token: string): { key: string, panels: string } => {
  const db = new BetterSqlite3(app.config.profilerDatabasePath, { readonly: true })
  try {
    const key = sqlitePanels(db).find(stored => stored.token === token)?.processKey as string
    const row = db.prepare('SELECT panels FROM profile_processes WHERE key = ?').get(key) as { panels: string }
    return { key, panels: row.panels }
  } finally {
    db.close()
  }
}

/** The sites the per-process row a profile names holds (its process's, in the order met). */
const processSites = (app: { config: { profilerDatabasePath: string } }, token: string): string[][] => JSON.parse(processOf(app, token).panels)[PROCESS_SITES]

/** Stores `panels` under `token` as a profile of the shown one's row values, through the store's queue (as a seeded or older profile came). */
function enqueueShown (app: Awaited<ReturnType<typeof buildTestApp>>, token: string, shown: Record<string, any>, panels: Record<string, unknown>, process?: { key: string, panels: string }): boolean {
  app.profileStore.reserveToken(token)
  return app.profileStore.enqueue({
    id: app.profileStore.nextId(Date.now()),
    token,
    parentToken: null,
    type: 'request',
    ip: '127.0.0.1',
    method: shown.method,
    url: shown.url,
    statusCode: shown.status,
    durationMs: shown.durationMs,
    route: shown.route,
    panels: JSON.stringify(panels),
    // The db panel reads its counts from the row.
    queryCount: shown.queries,
    queryMs: shown.queryMs,
    ...(process === undefined ? {} : { process })
  })
}

t.test('panels are stored without the values of the profile row, and shown with them, in their order', async t => {
  const app = await buildTestApp(t)
  const ok = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode?x=1', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' })
  const missing = await app.inject({ url: '/robots.txt' })
  for (const res of [ok, missing]) {
    const token = res.headers['x-debug-token'] as string
    const shown = await profileJson(app, token)
    const stored = storedPanels(app, token)
    t.notOk('method' in stored.request || 'url' in stored.request || 'route' in stored.request, 'the row holds method, URL and route')
    t.notOk('statusCode' in stored.request.response || 'statusText' in stored.request.response, 'and the status')
    t.notOk('totalMs' in stored.performance, 'and the duration')
    const { request, performance, exception, router } = shown.panels
    t.same(Object.keys(request), ['method', 'url', 'route', 'params', 'query', 'body', 'requestHeaders', 'response'])
    t.match(request, { method: shown.method, url: shown.url, route: shown.route, response: { statusCode: shown.status } })
    t.same(Object.keys(request.response), ['statusCode', 'statusText', 'headers', 'body'])
    t.same(Object.keys(performance), ['totalMs', 'beforeHandlerMs', 'handlerMs', 'sendingMs', 'heapUsedBytes', 'droppedProfiles'])
    t.equal(performance.totalMs, shown.durationMs)
    if (res === ok) {
      t.match(request, { url: 'http://localhost/ccenter/getConseillerByCode?x=1', route: '/ccenter/getConseillerByCode', response: { statusCode: 200, statusText: 'OK' } })
      t.same(router.matched, { route: '/ccenter/getConseillerByCode', method: 'POST' })
      t.same(stored.router.matched, { method: 'POST' })
      t.equal(exception, null)
    } else {
      t.match(request.response, { statusCode: 404, statusText: 'Not Found' })
      t.same(Object.keys(exception), ['name', 'statusCode', 'statusText', 'message', 'chain'])
      t.match(exception, { name: 'NotFoundHttpError', statusCode: 404, statusText: 'Not Found' })
      t.notOk('statusCode' in stored.exception, 'the exception panel is stored without the status too')
    }
  }
})

t.test('a timeline is stored as its hook runs, numbers naming their sites in the process row, the rest left to the panels that hold it, and read back whole', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' })
  const token = res.headers['x-debug-token'] as string
  const shown = (await profileJson(app, token)).panels.timeline
  const stored = storedPanels(app, token).timeline
  const sites = processSites(app, token)
  t.ok(shown.items.length >= 10, 'the hook runs, the handler and the statement')
  t.same(Object.keys(stored), ['v', 'runs', 'sendMs', 'omittedHooks', 'hooksTimed'], 'a version and the runs; no sites (the process row holds them), phases, statements or log lines (the performance, db and logs panels hold them)')
  t.equal(stored.v, 4, 'the runs\' starts and durations in whole µs')
  t.ok((stored.runs as number[]).every(Number.isInteger), 'every number of the runs an integer')
  t.notOk(PROCESS_SITES in shown && PROCESS_SITES in (await profileJson(app, token)).panels, 'the process\'s sites are no panel of the profile read')
  const runs = shown.items.filter((item: Record<string, unknown>) => item.kind !== 'statement')
  t.same(Array.from({ length: stored.runs.length / 3 }, (_run, i) => {
    const [place, startMs, durationMs] = stored.runs.slice(3 * i, 3 * i + 3) as number[]
    const [hook, name, plugin] = sites[place as number] as string[]
    const [start, duration] = [(startMs as number) / 1000, (durationMs as number) / 1000]
    return hook === 'handler' ? { kind: 'handler', type: 'handler', name, plugin: shown.items.find((item: { kind: string }) => item.kind === 'handler').plugin, startMs: start, durationMs: duration, ended: true } : { kind: 'hook', type: hook, name, plugin, startMs: start, durationMs: duration, ended: true }
  }), runs, 'each run as its site\'s place, start and duration (µs), in the order they ran')
  t.equal(sites.length, new Set(sites.map(site => site.join('\n'))).size, 'each site once in the process row')
  t.equal(stored.sendMs, shown.phases.at(-1).startMs, 'when sending began')
  t.same(Object.keys(shown), ['totalMs', 'phases', 'items', 'logs', 'hooksTimed', 'omitted'], 'read back whole, in the schema\'s order')
  t.same(Object.keys(shown.items[0]), ['kind', 'type', 'name', 'plugin', 'startMs', 'durationMs', 'ended'], 'each item with its keys, in that order')
  const itemsForm = JSON.stringify({ ...shown, totalMs: undefined, items: shown.items.map((item: Record<string, unknown>) => [item.kind, item.type, item.name, item.plugin, item.startMs, item.durationMs, item.ended]) })
  t.ok(JSON.stringify(stored).length < itemsForm.length * 0.75, `in under 75% of the bytes of the items stored as their values (${JSON.stringify(stored).length} of ${itemsForm.length})`)
})

t.test('a timeline stored in the forms before (its runs in ms naming the process row\'s sites, or with their own sites, its items as their values, or whole without hooksTimed) reads back the same', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' })
  const shown = await profileJson(app, res.headers['x-debug-token'] as string)
  const { v: _v, runs: runsInUs, ...rest } = storedPanels(app, res.headers['x-debug-token'] as string).timeline
  // The runs' starts and durations in ms, as stored before their µs (v 4).
  const runs = (runsInUs as number[]).map((value, at) => at % 3 === 0 ? value : value / 1000)
  // As the timeline's record wrote it with the sites in the process row, until its runs were in µs: v 3.
  const msForm = { v: 3, runs, ...rest }
  t.ok(enqueueShown(app, 'def454', shown, { ...storedPanels(app, res.headers['x-debug-token'] as string), timeline: msForm }, processOf(app, res.headers['x-debug-token'] as string)))
  t.equal(JSON.stringify((await profileJson(app, 'def454')).panels.timeline), JSON.stringify(shown.panels.timeline), 'runs in ms naming the process row\'s sites (v 3): the same timeline, key for key')
  t.same(storedPanels(app, 'def454').timeline, msForm, 'runs in ms: stored as it came')
  // As the timeline's record wrote it from 29 November 2026 until the sites moved to the process row: v 2, each site it names once.
  const sites = processSites(app, res.headers['x-debug-token'] as string)
  const used: number[] = []
  const placeIn = (place: number): number => (used.includes(place) ? used : (used.push(place), used)).indexOf(place)
  const ownRuns = runs.map((value, at) => at % 3 !== 0 ? value : value >= 0 ? placeIn(value) : -1 - placeIn(-1 - value))
  const runsForm = { v: 2, sites: used.map(place => sites[place]), runs: ownRuns, ...rest }
  t.ok(enqueueShown(app, 'def455', shown, { ...storedPanels(app, res.headers['x-debug-token'] as string), timeline: runsForm }))
  const readRuns = await profileJson(app, 'def455')
  t.equal(JSON.stringify(readRuns.panels.timeline), JSON.stringify(shown.panels.timeline), 'runs with their sites (v 2): the same timeline, key for key')
  t.same(storedPanels(app, 'def455').timeline, runsForm, 'runs with their sites: stored as it came')
  const { totalMs: _totalMs, ...timeline } = shown.panels.timeline
  // As the timeline's toStored wrote it from 27 to 29 November 2026, and as before it.
  const asValues = { ...timeline, items: timeline.items.map((item: Record<string, unknown>) => [item.kind, item.type, item.name, item.plugin, item.startMs, item.durationMs, item.ended]) }
  const { hooksTimed: _timed, ...beforeHooksTimed } = timeline
  for (const [form, stored] of [['items as values', asValues], ['items whole, no hooksTimed', beforeHooksTimed]] as const) {
    const token = form === 'items as values' ? 'def456' : 'def457'
    t.ok(enqueueShown(app, token, shown, { ...shown.panels, timeline: stored }))
    const read = await profileJson(app, token)
    t.same(read.panels.timeline, shown.panels.timeline, `${form}: the same timeline`)
    if (form === 'items as values') t.equal(JSON.stringify(read.panels.timeline), JSON.stringify(shown.panels.timeline), 'key for key and in the same order')
    t.same(storedPanels(app, token).timeline, stored, `${form}: stored as it came`)
  }
})

t.test('a profile stored whole (seeded, or written before panels were stored without the row values) reads the same', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1002"}' })
  const shown = await profileJson(app, res.headers['x-debug-token'] as string)
  const token = 'abc123'
  t.ok(enqueueShown(app, token, shown, shown.panels))
  const whole = await profileJson(app, token)
  t.equal(JSON.stringify(whole.panels), JSON.stringify(shown.panels), 'the same panels, key for key and in the same order')
  t.equal(storedPanels(app, token).request.method, 'POST', 'stored as it came')
})

t.test('the logs are stored with Fastify\'s own lines as their kind, offset and own value, and read back whole; the forms before read the same', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode?code=x', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' })
  const token = res.headers['x-debug-token'] as string
  const shown = await profileJson(app, token)
  const stored = storedPanels(app, token).logs
  t.equal(stored.v, 2)
  const [incoming, completed] = shown.panels.logs.lines
  t.match(incoming, { level: 'info', message: 'incoming request', fields: { req: { method: 'POST', url: '/ccenter/getConseillerByCode?code=x' } } })
  t.match(completed, { level: 'info', message: 'request completed', fields: { res: { statusCode: 200 } } })
  t.same(stored.lines, [[1, incoming.offsetMs, incoming.fields.req.url], [2, completed.offsetMs, completed.fields.responseTime]], 'each of Fastify\'s lines: kind, offset and the value the row does not hold')
  t.same(Object.keys(shown.panels.logs), ['lines', 'omitted', 'sampledOut'], 'read back whole, in the schema\'s order')
  t.same(Object.keys(incoming), ['offsetMs', 'level', 'message', 'fields'])
  // As stored before: the data whole (and before sampledOut existed).
  const { sampledOut: _sampledOut, ...beforeSampledOut } = shown.panels.logs
  for (const [form, logs, name] of [['whole', shown.panels.logs, 'def458'], ['whole, no sampledOut', beforeSampledOut, 'def459']] as const) {
    t.ok(enqueueShown(app, name, shown, { ...storedPanels(app, token), logs }))
    t.equal(JSON.stringify((await profileJson(app, name)).panels.logs), JSON.stringify(shown.panels.logs), `${form}: the same logs, key for key`)
  }
})

t.test('the writer stores a profile\'s panel records as one array (no panel names, the performance and db panels as their values); the form before, an object by panel name, reads the same', async t => {
  const app = await buildTestApp(t)
  const ok = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1002"}' })
  const missing = await app.inject({ url: '/robots.txt' })
  for (const [res, token] of [[ok, 'def460'], [missing, 'def461']] as const) {
    const written = res.headers['x-debug-token'] as string
    const shown = await profileJson(app, written)
    const db = new BetterSqlite3(app.config.profilerDatabasePath, { readonly: true })
    const text = sqlitePanels(db).find(stored => stored.token === written)?.panels as string
    db.close()
    const records = JSON.parse(text)
    t.ok(Array.isArray(records) && records[0] === 1 && records.length === 8, 'an array: its form, then the request, performance, exception, router, db, logs and timeline records')
    t.notOk(text.includes('"request"') || text.includes('"beforeHandlerMs"') || text.includes('"statements"'), 'neither the panels\' names nor the performance and db panels\' keys')
    t.same(records[5][1].map((statement: unknown[]) => statement[0]), shown.panels.db.statements.map((statement: { sql: string }) => statement.sql), 'each statement as its values, its SQL first')
    // As the release before stored them: an object by panel name, each panel without the row's values.
    const stored = storedPanels(app, written)
    const before = Object.fromEntries(Object.entries(stored).map(([name, record]) => [name, STORED_BEFORE[name]?.(shown.panels[name]) ?? record]))
    t.ok(enqueueShown(app, token, shown, before, processOf(app, written)))
    t.equal(JSON.stringify((await profileJson(app, token)).panels), JSON.stringify(shown.panels), `${shown.status}: the form before reads the same, key for key and in the same order`)
    t.same(Object.keys(storedPanels(app, token)), ['request', 'performance', 'exception', 'router', 'db', 'logs', 'timeline'], 'stored as it came')
  }
})
