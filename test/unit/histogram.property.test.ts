// run-suite: shares a process
// The route statistics' histogram on generated durations: its stored form reads back as written,
// stored histograms add up as the durations they hold together would, and a percentile read from
// one is within PERCENTILE_ERROR of the exact nearest-rank one (never above the exact max). The
// same estimates through the store's windows: test/profiler/route-stats-window.test.ts.
import fc from 'fast-check'
import t from 'tap'
import { exactPercentile } from '../helpers/percentile.js'
import { addEncodedHistogram, addEncodedHistograms, addHistogram, bucketOf, decodeHistogram, denseHistogram, encodeHistogram, PERCENTILE_ERROR, percentiles, type Histogram } from '../../plugins/profiler/stats/histogram.js'

/** Durations as the store keeps them: milliseconds to the microsecond, from 0 to about an hour. */
const durations = fc.array(fc.integer({ min: 0, max: 3_600_000_000 }).map(us => us / 1000), { minLength: 1, maxLength: 300 })

function histogramOf (values: number[]): Histogram {
  const histogram: Histogram = new Map()
  for (const ms of values) histogram.set(bucketOf(ms), (histogram.get(bucketOf(ms)) ?? 0) + 1)
  return histogram
}

const sorted = (histogram: Histogram): Array<[number, number]> => [...histogram].sort(([a], [b]) => a - b)

t.test('the stored form reads back as written, and two stored histograms add up as their durations together', async t => {
  fc.assert(fc.property(durations, durations, (a, b) => {
    const decoded = decodeHistogram(encodeHistogram(histogramOf(a)))
    const added = histogramOf(a)
    addHistogram(added, histogramOf(b))
    const dense = denseHistogram()
    addEncodedHistogram(dense, encodeHistogram(histogramOf(a)))
    addEncodedHistogram(dense, encodeHistogram(histogramOf(b)))
    const together = histogramOf([...a, ...b])
    // As the SQLite writer adds a batch's histogram to a stored row's (profiler_histogram_add).
    const addedStored = addEncodedHistograms(encodeHistogram(histogramOf(a)), encodeHistogram(histogramOf(b)))
    return JSON.stringify(sorted(decoded)) === JSON.stringify(sorted(histogramOf(a))) &&
      addedStored.equals(encodeHistogram(together)) &&
      JSON.stringify(sorted(added)) === JSON.stringify(sorted(together)) &&
      [...together].every(([bucket, count]) => dense[bucket] === count)
  }), { numRuns: 500, seed: 4101 })
  t.pass('500 generated pairs')
})

t.test('stored histograms whose pairs are out of order add up as decoded ones do', async t => {
  fc.assert(fc.property(durations, durations, (a, b) => {
    const reversed = (histogram: Histogram): Buffer => Buffer.concat(sorted(histogram).reverse().map(([bucket, count]) => encodeHistogram(new Map([[bucket, count]]))))
    return addEncodedHistograms(reversed(histogramOf(a)), reversed(histogramOf(b))).equals(encodeHistogram(histogramOf([...a, ...b])))
  }), { numRuns: 200, seed: 4103 })
  t.pass('200 generated pairs, each stored in descending order')
})

t.test('p50, p95 and p99 read from a histogram: within PERCENTILE_ERROR of the exact ones, never above the max', async t => {
  fc.assert(fc.property(durations, values => {
    const dense = denseHistogram()
    addEncodedHistogram(dense, encodeHistogram(histogramOf(values)))
    const maxMs = Math.max(...values)
    const estimates = percentiles(dense, [50, 95, 99], maxMs)
    return [50, 95, 99].every((percent, i) => {
      const exact = exactPercentile(values, percent)
      const estimate = estimates[i] ?? Number.NaN
      // Below a microsecond everything is bucket 0 (read as 0): the error is absolute there.
      return estimate <= maxMs && Math.abs(estimate - exact) <= exact * (PERCENTILE_ERROR + 1e-9) + 0.001
    })
  }), { numRuns: 500, seed: 4102 })
  t.pass('500 generated sets of durations')
})

t.test('no durations: every percentile is 0', async t => {
  t.same(percentiles(denseHistogram(), [50, 95, 99], 0), [0, 0, 0])
})
