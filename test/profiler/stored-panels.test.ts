import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { profileJson } from '../helpers/profiler.js'
import { sqlitePanelsOf } from '../helpers/sqlite-panels.js'

const storedPanels = (app: { config: { profilerDatabasePath: string } }, token: string): Record<string, any> => {
  const db = new BetterSqlite3(app.config.profilerDatabasePath, { readonly: true })
  try {
    return sqlitePanelsOf(db, token) as Record<string, any>
  } finally {
    db.close()
  }
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

t.test('a timeline\'s items are stored as their values, without keys, and read back whole', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1001"}' })
  const token = res.headers['x-debug-token'] as string
  const shown = (await profileJson(app, token)).panels.timeline
  const stored = storedPanels(app, token).timeline
  t.ok(shown.items.length >= 10, 'the hook runs, the handler and the statement')
  t.same(stored.items, shown.items.map((item: Record<string, unknown>) => [item.kind, item.type, item.name, item.plugin, item.startMs, item.durationMs, item.ended]), 'each item as its values, in the schema\'s order')
  t.same(Object.keys(shown.items[0]), ['kind', 'type', 'name', 'plugin', 'startMs', 'durationMs', 'ended'], 'read back with its keys, in that order')
  t.ok(JSON.stringify(stored.items).length < JSON.stringify(shown.items).length * 0.6, 'in under 60% of the bytes')
})

t.test('a profile stored whole (seeded, or written before panels were stored without the row values) reads the same', async t => {
  const app = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{"code":"ADV1002"}' })
  const shown = await profileJson(app, res.headers['x-debug-token'] as string)
  const token = 'abc123'
  app.profileStore.reserveToken(token)
  t.ok(app.profileStore.enqueue({
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
    panels: JSON.stringify(shown.panels)
  }))
  const whole = await profileJson(app, token)
  t.equal(JSON.stringify(whole.panels), JSON.stringify(shown.panels), 'the same panels, key for key and in the same order')
  t.equal(storedPanels(app, token).request.method, 'POST', 'stored as it came')
})
