// run-suite: shares a process
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { exactPercentile } from '../helpers/percentile.js'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../plugins/profiler/profile.js'
import { PERCENTILE_ERROR } from '../../plugins/profiler/stats/histogram.js'
import { HOUR_MS, MINUTE_MS } from '../../plugins/profiler/stats/rollup.js'
import { openProfileDatabase } from '../../plugins/profiler/engine/sqlite/open-database.js'
import { SqliteProfileSearch } from '../../plugins/profiler/engine/sqlite/profile-search.js'
import { SqliteProfileWriter } from '../../plugins/profiler/engine/sqlite/profile-writer.js'

// A window that starts inside an hour is read from two spans (the minutes up to the first whole
// hour, then the hours) which the store adds up per line, and which the reader adds together:
// here profiles are written at chosen times, through the writer, over three hours, and every
// window's lines are checked against the profiles they must cover, computed here.

const START_MS = Date.UTC(2026, 10, 20, 9, 0)
const ROUTES = [['GET', '/api/orders/:id'], ['POST', '/api/orders/:id'], ['GET', '/api/teams/:id'], ['GET', null]] as const

interface Written { startMs: number, method: string, route: string | null, statusCode: number, durationMs: number }

t.test('a window starting inside an hour adds its minute rows and its hour rows into the same lines', async t => {
  const { db } = openProfileDatabase(join(t.testdir(), 'profiles.sqlite'))
  t.teardown(() => db.close())
  const writer = new SqliteProfileWriter(db)
  const search = new SqliteProfileSearch(db)

  const profile = fc.record({
    offsetMs: fc.integer({ min: 0, max: 3 * HOUR_MS - 1 }),
    routeIndex: fc.integer({ min: 0, max: ROUTES.length - 1 }),
    statusCode: fc.constantFrom(200, 201, 302, 404, 500),
    durationUs: fc.integer({ min: 0, max: 5_000_000 })
  })
  const written: Written[] = fc.sample(profile, { numRuns: 600, seed: 13 }).map(({ offsetMs, routeIndex, statusCode, durationUs }) => {
    const [method, route] = ROUTES[routeIndex] ?? ROUTES[0]
    return { startMs: START_MS + offsetMs, method, route, statusCode: route === null ? 404 : statusCode, durationMs: durationUs / 1000 }
  })
  const records: ProfileRecord[] = written.map((p, i) => ({
    id: p.startMs * ID_SLOTS_PER_MS + (i % ID_SLOTS_PER_MS),
    token: i.toString(16).padStart(6, '0'),
    parentToken: null,
    type: 'request',
    ip: '127.0.0.1',
    method: p.method,
    url: `http://127.0.0.1/${i}`,
    statusCode: p.statusCode,
    durationMs: p.durationMs,
    route: p.route,
    panels: '{}'
  }))
  // Several batches, as the writer thread gets them: rows are updated, not only inserted.
  for (let i = 0; i < records.length; i += 100) t.same(writer.write(records.slice(i, i + 100)).rejected, [])

  // Windows of one hour whose start falls at a whole hour, inside one, and inside the first minute.
  // Windows longer than a day (minute rows are kept two days) start at the hour their start falls in.
  const windows = [
    ...[0, HOUR_MS, 17 * MINUTE_MS + 20_000, HOUR_MS + 42 * MINUTE_MS, 2 * HOUR_MS + 59 * MINUTE_MS].map(startOffsetMs => ({ windowMs: HOUR_MS, startOffsetMs, unit: MINUTE_MS })),
    ...[17 * MINUTE_MS, HOUR_MS + 42 * MINUTE_MS].map(startOffsetMs => ({ windowMs: 7 * 24 * HOUR_MS, startOffsetMs, unit: HOUR_MS })),
    // The alert rules' windows (issue 40): inside an hour, across a whole hour, from inside a minute.
    ...[[5, 17 * MINUTE_MS], [5, HOUR_MS + 57 * MINUTE_MS], [15, 2 * HOUR_MS + 50 * MINUTE_MS + 30_000], [30, 40 * MINUTE_MS], [1.5, HOUR_MS + 59 * MINUTE_MS + 10_000]]
      .map(([minutes = 0, startOffsetMs = 0]) => ({ windowMs: minutes * MINUTE_MS, startOffsetMs, unit: MINUTE_MS }))
  ]
  for (const { windowMs, startOffsetMs, unit } of windows) {
    const nowMs = START_MS + startOffsetMs + windowMs
    const { fromMs, routes } = search.routeStats(nowMs, windowMs)
    t.equal(fromMs, Math.floor((START_MS + startOffsetMs) / unit) * unit)
    // The hour rows after the first whole hour hold everything up to now and beyond.
    const covered = written.filter(p => p.startMs >= fromMs)
    const expected = new Map<string, Written[]>()
    for (const p of covered) {
      const key = p.route === null ? `${p.statusCode}` : `${p.method} ${p.route}`
      expected.set(key, [...(expected.get(key) ?? []), p])
    }
    t.equal(routes.length, expected.size, `${windowMs / MINUTE_MS} min window from +${startOffsetMs / MINUTE_MS} min: one line per route and method, or status`)
    for (const line of routes) {
      const key = line.route === null ? `${line.status ?? ''}` : `${line.method ?? ''} ${line.route}`
      const profiles = expected.get(key) ?? []
      const durations = profiles.map(p => p.durationMs)
      const classes = [1, 2, 3, 4, 5].map(c => profiles.filter(p => Math.floor(p.statusCode / 100) === c).length)
      t.equal(line.count, profiles.length, `${key}: count`)
      t.same(Object.values(line.statusClasses), classes, `${key}: status classes`)
      t.equal(line.maxMs, Math.max(...durations), `${key}: max`)
      t.ok(Math.abs(line.meanMs - durations.reduce((a, b) => a + b, 0) / durations.length) < 0.001, `${key}: mean`)
      for (const percent of [50, 95, 99] as const) {
        const exact = exactPercentile(durations, percent)
        const estimate = line[`p${percent}Ms`]
        t.ok(Math.abs(estimate - exact) <= exact * (PERCENTILE_ERROR + 1e-9) + 0.001, `${key}: p${percent} ${estimate} against ${exact}`)
      }
    }
  }
})
