// run-suite: shares a process
// Generated route keys (hostile text, long routes, many methods and statuses) counted over three days
// into a store whose byte bound is far too small for their statistics: after retention, on the
// store's own writer (engine/contract.ts), the statistics are within their share of the bound and
// the current hour of every key is counted exactly (coarsening never deletes the current hour).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import fc from 'fast-check'
import t from 'tap'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { STATISTICS_SHARE } from '../../plugins/profiler/engine/retention-policy.js'
import { HOUR_MS } from '../../plugins/profiler/stats/rollup.js'
import type { StatisticsOnly } from '../../plugins/profiler/stats/rollup.js'
import { hostileText } from '../helpers/hostile.js'
import { statisticsBytes } from '../helpers/seeded-statistics.js'

const MAX_BYTES = 512 * 1024
const DAY_MS = 86_400_000

const routeKey = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND'),
  // A matched route (any text, up to 300 characters), or none: then counted by status.
  route: fc.option(fc.oneof(hostileText(40, 4), fc.string({ minLength: 1, maxLength: 300 })), { nil: null }),
  statusCode: fc.integer({ min: 100, max: 599 })
})

t.test('generated route keys: the statistics keep their share of the bound, the current hour exact', async t => {
  await fc.assert(fc.asyncProperty(fc.uniqueArray(routeKey, { minLength: 20, maxLength: 60, selector: key => `${key.method} ${key.route ?? key.statusCode}` }), async keys => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-keys-'))
    try {
      const path = join(dir, 'profiler.sqlite')
      const limits = { maxProfiles: 1000, maxAgeMs: 2 * DAY_MS, maxBytes: MAX_BYTES, statsMaxAgeMs: 30 * DAY_MS }
      const writer = await openStoreWriter({ engine: 'sqlite', path }, 'A', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
      const nowMs = Date.now()
      const hourStart = Math.floor(nowMs / HOUR_MS) * HOUR_MS
      // Every key, every 10 minutes of three days back to now: minute and hour rows.
      const requests: StatisticsOnly[] = []
      for (let startMs = nowMs - 3 * DAY_MS; startMs <= nowMs; startMs += 600_000) {
        for (const key of keys) requests.push({ startMs, method: key.method, route: key.route, statusCode: key.statusCode, durationMs: (startMs % 997) / 10 })
      }
      for (let i = 0; i < requests.length; i += 5000) await writer.write([], requests.slice(i, i + 5000))
      await writer.prune(nowMs)
      await writer.close()
      const bytes = await statisticsBytes({ PROFILER_DATABASE_PATH: path })
      if (bytes > MAX_BYTES * STATISTICS_SHARE) throw new Error(`the statistics hold ${bytes} bytes, over their share`)
      const db = new BetterSqlite3(path, { readonly: true })
      try {
        const counted = db.prepare('SELECT sum(count) FROM profile_route_stats WHERE span_ms = ? AND start_ms = ?').pluck().get(HOUR_MS, hourStart) as number
        const sent = requests.filter(request => request.startMs >= hourStart).length
        if (counted !== sent) throw new Error(`the current hour counts ${counted} requests of ${sent}`)
      } finally {
        db.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }), { numRuns: 8 })
  t.pass('every generated set of keys')
})
