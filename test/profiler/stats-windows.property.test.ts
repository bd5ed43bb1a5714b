// run-suite: shares a process
// Issue 40: the stats page reads the window an alert rule reads. Properties of the `window`
// parameter on generated values, through the statistics' JSON as the page, the command line and
// MCP build it (routeStatsJson) over a real SQLite store: every value is either a window (a
// duration from 1s to 30d, or one of the offered names) whose span is that window from the minute
// its start falls in (the hour, past a day), or a 400 naming the parameter, never anything else.
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { openProfileDatabase } from '../../plugins/profiler/engine/sqlite/open-database.js'
import { SqliteProfileSearch } from '../../plugins/profiler/engine/sqlite/profile-search.js'
import { routeStatsJson, type RouteStatsSource } from '../../plugins/profiler/query/stats-json.js'
import { hostileText } from '../helpers/hostile.js'

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const STATS_MAX_AGE_MS = 400 * DAY_MS

/** A duration's length as the rules file reads it; NaN: not a duration. */
function msOf (text: string): number {
  const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(text)
  return match === null ? NaN : Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? NaN)
}

t.test('window: a duration from 1s to 30d covers that span from its first minute (hour past a day); anything else is a 400 naming it', async t => {
  const { db } = openProfileDatabase(join(t.testdir(), 'profiles.sqlite'))
  t.teardown(() => db.close())
  const search = new SqliteProfileSearch(db)
  const source: RouteStatsSource = {
    routeStats: async (nowMs, windowMs, deployment) => search.routeStats(nowMs, windowMs, deployment),
    rollupPeriods: async range => search.rollupPeriods(range)
  }
  const duration = fc.record({ n: fc.integer({ min: 0, max: 50_000 }), unit: fc.constantFrom('ms', 's', 'm', 'h', 'd') }).map(({ n, unit }) => `${n}${unit}`)
  const window = fc.oneof(duration, hostileText(20), fc.constantFrom('5m', '15m', '30m', '1h', '24h', '7d', '30d', '60m', '1d', '720h', '721h', '0s', '999ms', '1000ms'))
  const nowMs = Date.UTC(2026, 10, 28, 5, 37, 12, 345)
  await fc.assert(fc.asyncProperty(window, async value => {
    // An empty value is the default window.
    const ms = value === '' ? HOUR_MS : msOf(value)
    const valid = ms >= 1000 && ms <= 30 * DAY_MS
    try {
      const answer = await routeStatsJson(source, { window: value }, STATS_MAX_AGE_MS, 'window', nowMs)
      if (!valid) return false
      const from = Date.parse(answer.from)
      const unit = ms > DAY_MS ? HOUR_MS : MINUTE_MS
      // Named as offered when it is one of them (60m is 1h), else as the rules file spells it (120s is 2m): the same length.
      const named = msOf(answer.window) === ms
      return named && from === Math.floor((nowMs - ms) / unit) * unit && answer.trendSpan === (ms <= HOUR_MS ? '1m' : '1h')
    } catch (err) {
      const error = err as Error & { statusCode?: number }
      return !valid && error.statusCode === 400 && error.message.startsWith(`Invalid "window" parameter "${value}": expected 5m, 15m, 30m, 1h, 24h, 7d, 30d or another duration`)
    }
  }), { numRuns: 500, seed: 4040 })
  t.pass('500 generated windows')
})
