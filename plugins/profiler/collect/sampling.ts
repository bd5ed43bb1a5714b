// Which requests are kept as profiles (issue #24): PROFILER_SAMPLE of them at random, and always
// the server errors, the exceptions, the slow ones and those an operator forces with the secret.
// The others are recorded for the route statistics only (recorder.ts).
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { formatMs } from '../units.js'
import type { Kept } from '../schemas.js'

/** The header that forces a request to be kept: `X-Profiler-Keep: <PROFILER_SECRET>`. Redacted wherever headers are kept (lib/redact.ts). */
const KEEP_HEADER = 'x-profiler-keep'

export interface SamplingOptions {
  /** The share of requests kept at random, 0 to 1 (PROFILER_SAMPLE). */
  sample: number
  /** Requests slower than this are kept whatever the sample (PROFILER_KEEP_SLOWER_THAN). */
  keepSlowerThanMs: number
  /** The sample's random source, [0, 1) (tests pass a seeded one); Math.random otherwise. */
  random?: () => number
}

export const KEEP_EVERY_REQUEST: SamplingOptions = { sample: 1, keepSlowerThanMs: 1000 }

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

/**
 * Whether a request's headers carry the keep header with the profiler's secret. The digests are compared
 * (in constant time, and of equal length whatever was sent); without a secret the header does nothing.
 */
export function keepHeaderCheck (secret: string | null): (headers: IncomingHttpHeaders) => boolean {
  if (secret === null) return () => false
  const expected = digest(secret)
  return headers => {
    const value = headers[KEEP_HEADER]
    return typeof value === 'string' && timingSafeEqual(digest(value), expected)
  }
}

/** The sample's draw, made when the request arrives: true keeps it (every request at 1, none at 0). */
export function sampleDraw ({ sample, random = Math.random }: SamplingOptions): () => boolean {
  if (sample >= 1) return () => true
  if (sample <= 0) return () => false
  return () => random() < sample
}

/**
 * Kept whatever the draw: a server error, an exception (an error answered with anything but a
 * client error: a 404 or a validation 400 is sampled like the rest), a request slower than the threshold.
 */
export function keptByRule (statusCode: number, raisedError: boolean, elapsedMs: number, { keepSlowerThanMs }: SamplingOptions): boolean {
  return statusCode >= 500 || (raisedError && (statusCode < 400 || statusCode >= 500)) || elapsedMs > keepSlowerThanMs
}

function percent (share: number): string {
  return `${Number((share * 100).toPrecision(3))}%`
}

/** What is kept, for people: "every request", or "10% of requests, and every error and slow request (over 1.00 s)". */
function keptText ({ sample, keepSlowerThanMs }: SamplingOptions): string {
  if (sample >= 1) return 'every request'
  const share = sample <= 0 ? 'no request at random' : `${percent(sample)} of requests`
  return `${share}, and every error and slow request (over ${formatMs(keepSlowerThanMs)})`
}

/** What is kept, as the JSON twins carry it: the settings and the sentence the pages show. */
export function keptJson (sampling: SamplingOptions): Kept {
  return { sample: sampling.sample, keepSlowerThanMs: sampling.keepSlowerThanMs, sentence: keptText(sampling) }
}
