// A fixed log-scale histogram of durations, the same for every rollup row so that rows add up.
// Bucket 0 holds 0 ms (durations are stored to the microsecond); bucket i >= 1 holds
// [LOWEST * 2^((i-1)/STEPS), LOWEST * 2^(i/STEPS)). A percentile is read as its bucket's geometric
// middle (capped by the exact max), so it is within 2^(1/16) - 1 = 4.4% of the exact value.

/** The lowest duration told apart from 0: one microsecond. */
const LOWEST_MS = 0.001
/** Buckets per doubling: 8 gives buckets 9% wide. */
const STEPS = 8
/** The last bucket also holds anything longer (2^49 µs: about 18 years). */
const MAX_BUCKET = 400
/** How far a percentile read from a histogram can be from the exact one, relatively. */
export const PERCENTILE_ERROR = 2 ** (1 / (2 * STEPS)) - 1

/** Bucket index -> count, only the buckets in use. */
export type Histogram = Map<number, number>

export function bucketOf (ms: number): number {
  if (!(ms >= LOWEST_MS)) return 0
  return Math.min(MAX_BUCKET, 1 + Math.floor(Math.log2(ms / LOWEST_MS) * STEPS))
}

/** The value a bucket stands for: 0 for bucket 0, else the geometric middle of its bounds. */
function bucketValue (bucket: number): number {
  return bucket === 0 ? 0 : LOWEST_MS * 2 ** ((bucket - 0.5) / STEPS)
}

/** `into` += `from`. */
export function addHistogram (into: Histogram, from: Histogram): void {
  for (const [bucket, count] of from) into.set(bucket, (into.get(bucket) ?? 0) + count)
}

/** Stored form: (uint16 bucket, uint32 count) little-endian pairs, buckets ascending. */
export function encodeHistogram (histogram: Histogram): Buffer {
  const buckets = [...histogram.keys()].sort((a, b) => a - b)
  const bytes = Buffer.alloc(buckets.length * 6)
  buckets.forEach((bucket, i) => {
    bytes.writeUInt16LE(bucket, i * 6)
    bytes.writeUInt32LE(histogram.get(bucket) ?? 0, i * 6 + 2)
  })
  return bytes
}

export function decodeHistogram (bytes: Uint8Array, into: Histogram = new Map()): Histogram {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let offset = 0; offset + 6 <= view.length; offset += 6) {
    const bucket = view.readUInt16LE(offset)
    into.set(bucket, (into.get(bucket) ?? 0) + view.readUInt32LE(offset + 2))
  }
  return into
}

const bucketAt = (bytes: Uint8Array, offset: number): number => (bytes[offset] ?? 0) | (bytes[offset + 1] ?? 0) << 8
const countAt = (bytes: Uint8Array, offset: number): number =>
  ((bytes[offset + 2] ?? 0) | (bytes[offset + 3] ?? 0) << 8 | (bytes[offset + 4] ?? 0) << 16) + (bytes[offset + 5] ?? 0) * 2 ** 24

/**
 * Two stored histograms added up, in the stored form: what decoding both, adding and encoding give.
 * Both are merged as they lie, buckets ascending, without a map or a sort (the SQLite writer adds
 * a batch's histogram to each of its rows this way). Pairs out of order, or a count past uint32,
 * take the decoding path instead (which sorts them, and refuses such a count as encodeHistogram does).
 */
export function addEncodedHistograms (a: Uint8Array, b: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(a.length - a.length % 6 + b.length - b.length % 6)
  let i = 0
  let j = 0
  let at = 0
  let last = -1
  while (i + 6 <= a.length || j + 6 <= b.length) {
    const fromA = i + 6 <= a.length ? bucketAt(a, i) : Infinity
    const fromB = j + 6 <= b.length ? bucketAt(b, j) : Infinity
    const bucket = Math.min(fromA, fromB)
    let count = 0
    if (fromA === bucket) {
      count += countAt(a, i)
      i += 6
    }
    if (fromB === bucket) {
      count += countAt(b, j)
      j += 6
    }
    if (bucket <= last || count > 0xffffffff) return encodeHistogram(decodeHistogram(b, decodeHistogram(a)))
    last = bucket
    out.writeUInt16LE(bucket, at)
    out.writeUInt32LE(count, at + 2)
    at += 6
  }
  return out.subarray(0, at)
}

/** Bucket index -> count over every bucket: what a window's rows are added into (no map per row). */
export type DenseHistogram = Float64Array

export const denseHistogram = (): DenseHistogram => new Float64Array(MAX_BUCKET + 1)

/** Adds a stored histogram's counts into `into`, reading the bytes in place. */
export function addEncodedHistogram (into: DenseHistogram, bytes: Uint8Array): void {
  for (let offset = 0; offset + 6 <= bytes.length; offset += 6) {
    const bucket = Math.min(MAX_BUCKET, (bytes[offset] ?? 0) | (bytes[offset + 1] ?? 0) << 8)
    into[bucket] = (into[bucket] ?? 0) +
      ((bytes[offset + 2] ?? 0) | (bytes[offset + 3] ?? 0) << 8 | (bytes[offset + 4] ?? 0) << 16) + (bytes[offset + 5] ?? 0) * 2 ** 24
  }
}

/**
 * The nearest-rank percentiles (`percents` ascending, 50 for p50): the value of the bucket holding the
 * ceil(percent × n / 100)-th smallest duration, never above the exact `maxMs`. (Whole percents
 * keep the rank exact: 0.95 × 100 is 95.00000000000001 in floating point.)
 */
export function percentiles (histogram: DenseHistogram, percents: number[], maxMs: number): number[] {
  let total = 0
  for (const count of histogram) total += count
  if (total === 0) return percents.map(() => 0)
  const values: number[] = []
  let seen = 0
  let bucket = -1
  for (const percent of percents) {
    const rank = Math.max(1, Math.ceil(percent * total / 100))
    while (seen < rank && bucket < MAX_BUCKET) seen += histogram[++bucket] ?? 0
    values.push(seen >= rank ? Math.min(bucketValue(bucket), maxMs) : maxMs)
  }
  return values
}
