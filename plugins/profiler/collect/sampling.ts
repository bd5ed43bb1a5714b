// Which requests are kept as profiles (issue #24): PROFILER_SAMPLE of them at random, and always
// the server errors, the exceptions, the slow ones and those an operator forces with the secret
// (keep-header.ts). The others are recorded for the route statistics only (recorder.ts). Nothing a
// client controls keeps a request (issue #37): "slow" is the service's own time, from the whole
// request received to its answer handed to the connection, and client errors (parser rejections
// included) are sampled like any request.
import { formatMs } from '../units.js'
import type { Kept } from '../schemas.js'

export interface SamplingOptions {
  /** The share of requests kept at random, 0 to 1 (PROFILER_SAMPLE). */
  sample: number
  /** Requests slower than this are kept whatever the sample (PROFILER_KEEP_SLOWER_THAN). */
  keepSlowerThanMs: number
  /** The sample's random source, [0, 1) (tests pass a seeded one); Math.random otherwise. */
  random?: () => number
}

export const KEEP_EVERY_REQUEST: SamplingOptions = { sample: 1, keepSlowerThanMs: 1000 }

/** The sample's draw, made when the request arrives: true keeps it (every request at 1, none at 0). */
export function sampleDraw ({ sample, random = Math.random }: SamplingOptions): () => boolean {
  if (sample >= 1) return () => true
  if (sample <= 0) return () => false
  return () => random() < sample
}

/**
 * Kept whatever the draw: a server error, an exception (an error answered with anything but a
 * client error: a 404 or a validation 400 is sampled like the rest), a request the service took
 * longer than the threshold to answer (`serviceMs`: null when it did not wait for the whole
 * request, see recorder.ts; never slow then).
 */
export function keptByRule (statusCode: number, raisedError: boolean, serviceMs: number | null, { keepSlowerThanMs }: SamplingOptions): boolean {
  return statusCode >= 500 || (raisedError && (statusCode < 400 || statusCode >= 500)) || (serviceMs !== null && serviceMs > keepSlowerThanMs)
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
