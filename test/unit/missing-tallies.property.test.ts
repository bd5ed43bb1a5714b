// run-suite: shares a process
// The tallies of requests the statistics could not count (stats/missing.ts), for generated request
// starts (a fault of minutes, or of months): never more than MAX_MISSING_PERIODS periods in memory,
// every request in exactly one of them, each period the one its requests started in (coarser once
// too many are missing); and the page's grouping of them keeps every one that overlaps its window.
import fc from 'fast-check'
import t from 'tap'
import { MAX_MISSING_PERIODS, MissingTallies, missingAnswer } from '../../plugins/profiler/stats/missing.js'

const NOW = Date.UTC(2026, 10, 27, 12)
const DAY_MS = 86_400_000

/** Request starts: bursts within a few minutes, or spread over up to 200 days (coarsening to days). */
const starts = fc.oneof(
  fc.array(fc.integer({ min: NOW - 10 * 60_000, max: NOW }), { maxLength: 3000 }),
  fc.array(fc.integer({ min: NOW - 200 * DAY_MS, max: NOW }), { maxLength: 5000 })
)

t.test('bounded, every request in the period it started in', async t => {
  fc.assert(fc.property(starts, fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 5 }), (times, counts) => {
    const tallies = new MissingTallies()
    let total = 0
    for (const [i, startMs] of times.entries()) {
      const count = counts[i % counts.length] as number
      tallies.add(startMs, count)
      total += count
      if (tallies.size > MAX_MISSING_PERIODS) return false
    }
    const windows = tallies.peek()
    if (windows.reduce((sum, window) => sum + window.count, 0) !== total || tallies.total !== total) return false
    const oldest = Math.min(...times)
    // Every start lies in a period held (the newest day takes what does not fit at a day's span: not reached here).
    return times.every(startMs => windows.some(window => window.startMs <= startMs && startMs < window.startMs + window.spanMs)) &&
      windows.every(window => window.startMs + window.spanMs > oldest)
  }))
})

t.test('taken once: the tallies are empty after, and start again per minute', async t => {
  const tallies = new MissingTallies()
  for (let day = 0; day < MAX_MISSING_PERIODS + 1; day++) tallies.add(NOW - day * 60_000)
  t.equal(tallies.peek()[0]?.spanMs, 3_600_000, 'coarsened to hours past the bound')
  t.equal(tallies.take().reduce((sum, window) => sum + window.count, 0), MAX_MISSING_PERIODS + 1)
  t.equal(tallies.size, 0)
  tallies.add(NOW)
  t.same(tallies.peek(), [{ spanMs: 60_000, startMs: NOW, count: 1 }])
})

t.test('the page keeps what overlaps its window, per period at least its span', async t => {
  fc.assert(fc.property(fc.array(fc.record({
    spanMs: fc.constantFrom(60_000, 3_600_000, DAY_MS),
    startMs: fc.integer({ min: NOW - 3 * DAY_MS, max: NOW }),
    count: fc.integer({ min: 1, max: 1000 })
  }), { maxLength: 200 }), fc.constantFrom(60_000, 3_600_000), (windows, spanMs) => {
    const aligned = windows.map(window => ({ ...window, startMs: Math.floor(window.startMs / window.spanMs) * window.spanMs }))
    const fromMs = NOW - DAY_MS
    const answer = missingAnswer(aligned, fromMs, NOW + 1, spanMs)
    const overlapping = aligned.filter(window => window.startMs + window.spanMs > fromMs && window.startMs <= NOW)
    return answer.total === overlapping.reduce((sum, window) => sum + window.count, 0) &&
      answer.windows.reduce((sum, window) => sum + window.count, 0) === answer.total &&
      answer.windows.every(window => Date.parse(window.to) - Date.parse(window.from) >= spanMs)
  }))
})
