// Sends the traces of stored profiles to an OTLP/HTTP collector, in the writer thread and never in
// the way of a write: offer() encodes and queues (bounded in bytes) and returns; batches go out one
// request at a time on timers. As the OTLP specification says: 429, 502, 503, 504 and network
// errors are retried with exponential back-off (Retry-After honoured), any other refusal (400 and
// the rest) is not. A batch still refused after its last try, and traces that find the queue full,
// are dropped and counted: exported + dropped + queued is every span offered.
import type { OtlpSettings } from '../../../../lib/otlp-environment.js'
import type { ExportState } from '../../schemas.js'
import type { EncodedTrace, ExportedProfile, TraceEncoding } from './trace-encoding.js'
import { createPoster, type PostAnswer, type Poster } from './http-post.js'

export type { ExportState }

export interface ExportTuning {
  /** How long spans wait for others to go in the same request (unless a request's worth is queued). */
  delayMs: number
  /** The queue's bound, encoded bytes of the traces waiting or being sent. */
  maxQueueBytes: number
  /** One request's body at most (a trace larger than this is dropped). */
  maxRequestBytes: number
  /** Tries of one batch before it is dropped. */
  maxAttempts: number
  /** The first retry's delay; doubled at each next one (±20%), up to maxRetryMs. */
  firstRetryMs: number
  maxRetryMs: number
  /** A Retry-After longer than this is shortened to it. */
  maxRetryAfterMs: number
}

export const DEFAULT_EXPORT_TUNING: ExportTuning = {
  delayMs: 1000,
  maxQueueBytes: 8 * 1024 * 1024,
  maxRequestBytes: 1024 * 1024,
  maxAttempts: 5,
  firstRetryMs: 1000,
  maxRetryMs: 30_000,
  maxRetryAfterMs: 120_000
}

/** Statuses the OTLP specification says to retry ("OTLP/HTTP Throttling", "Failures"). */
const RETRYABLE = new Set([429, 502, 503, 504])
/** Closing: the last queued spans get one try, this long at most. */
const CLOSE_TIMEOUT_MS = 2000
/** Neighbouring traces are queued together up to this many bytes: one queue entry and one buffer for ~20 profiles. */
const QUEUE_ENTRY_BYTES = 64 * 1024
/**
 * And up to this share of a request's bound: a request takes whole entries, so an entry as large as
 * a request left the rest of the request empty (the oldest trace sent alone while the next ones fit).
 */
const ENTRIES_A_REQUEST = 8
/** A signal that never aborts. */
const NEVER = new AbortController().signal

interface Batch { traces: EncodedTrace[], spans: number, bytes: number, attempts: number }

type Outcome = { ok: true } | { ok: false, retry: boolean, reason: string, retryAfterMs: number | null }

/** Retry-After: seconds, or an HTTP date; null when absent or unreadable. */
function retryAfterMs (value: string | null, now = Date.now()): number | null {
  if (value === null) return null
  if (/^\s*[0-9]+\s*$/.test(value)) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** The URL as shown: without a user name or password in it. */
function withoutCredentials (url: string): string {
  const parsed = new URL(url)
  parsed.username = ''
  parsed.password = ''
  return parsed.href
}

export class OtlpExporter {
  private readonly queue: EncodedTrace[] = []
  private queuedSpans = 0
  /** Bytes of the traces queued and of the batch being sent. */
  private bytes = 0
  private sending: Batch | null = null
  private attempt: Promise<void> | null = null
  private timer: NodeJS.Timeout | null = null
  /** The timer running is one of no delay (a request's worth was queued). */
  private sendingNow = false
  /** Cancels the request in flight when the service closes. */
  private readonly closing = new AbortController()
  private closed = false
  private readonly state: ExportState
  private readonly poster: Poster

  constructor (
    private readonly settings: OtlpSettings,
    private readonly encoding: TraceEncoding,
    private readonly tuning: ExportTuning,
    /** Told whenever the counts or the state change (not for each offer that fits). */
    private readonly report: (state: ExportState) => void
  ) {
    this.poster = createPoster(settings.url)
    this.state = { url: withoutCredentials(settings.url), protocol: settings.protocol, state: 'ok', since: null, reason: null, exportedSpans: 0, droppedSpans: 0, queuedSpans: 0 }
  }

  /**
   * Queues the traces of profiles just stored (`toProfile` reads one); never waits, never throws.
   * Each trace is judged alone (the request's bound, the queue's); those kept go in entries of up to
   * 64 KiB of neighbouring traces, one buffer each, rather than one a trace.
   */
  offer<T> (items: readonly T[], toProfile: (item: T) => ExportedProfile): void {
    const encoding = this.encoding
    const entryBytes = Math.min(QUEUE_ENTRY_BYTES, Math.floor(this.tuning.maxRequestBytes / ENTRIES_A_REQUEST))
    let dropped = 0
    let lastReason = ''
    let pendingSpans = 0
    for (const item of items) {
      const before = encoding.pendingBytes()
      let spans: number
      try {
        spans = encoding.append(toProfile(item))
      } catch (err) {
        encoding.unappend(before)
        lastReason = `a profile could not be encoded: ${(err as Error).message}`
        continue
      }
      let bytes = encoding.pendingBytes() - before
      if (this.closed || bytes > this.tuning.maxRequestBytes || this.bytes + bytes > this.tuning.maxQueueBytes) {
        encoding.unappend(before)
        dropped += spans
        lastReason = this.closed ? 'the export is closed' : bytes > this.tuning.maxRequestBytes ? `a trace of ${bytes} bytes is over one request's bound` : `the export queue is full (${this.tuning.maxQueueBytes} bytes): the collector is slower than the profiles, or down`
        continue
      }
      // An entry is never over one request's bound: the traces before this one go first when it would be.
      if (before > 0 && before + bytes > entryBytes) {
        this.queue.push(encoding.take(before, pendingSpans))
        pendingSpans = 0
        // Alone now: its bytes without what joined it to the ones before (JSON's comma).
        bytes = encoding.pendingBytes()
      }
      pendingSpans += spans
      this.queuedSpans += spans
      this.bytes += bytes
    }
    const rest = encoding.pendingBytes()
    if (rest > 0) this.queue.push(encoding.take(rest, pendingSpans))
    if (dropped > 0) this.drop(dropped, lastReason)
    else if (lastReason !== '') this.enter('failing', lastReason)
    this.schedule()
  }

  /** What has become of the spans so far. */
  snapshot (): ExportState {
    return { ...this.state, queuedSpans: this.queuedSpans + (this.sending?.spans ?? 0) }
  }

  /** Stops the timers; what is queued gets one try (2 s at most), what is left then is dropped and counted. */
  async close (): Promise<void> {
    this.closed = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.closing.abort()
    await this.attempt
    const waiting = this.sending
    this.sending = null
    if (waiting !== null) this.requeue(waiting)
    const deadline = Date.now() + CLOSE_TIMEOUT_MS
    while (this.queue.length > 0 && Date.now() < deadline) {
      const batch = this.nextBatch()
      const outcome = await this.post(batch, Math.max(1, deadline - Date.now()))
      this.settle(batch, outcome, false)
    }
    if (this.queuedSpans > 0) {
      const spans = this.queuedSpans
      this.queue.length = 0
      this.queuedSpans = 0
      this.bytes = 0
      this.drop(spans, 'the service closed before the collector took them')
    }
    this.poster.close()
  }

  private requeue (batch: Batch): void {
    this.queue.unshift(...batch.traces)
    this.queuedSpans += batch.spans
  }

  /**
   * Sends the next batch after the delay, or at once when a request's worth is queued: also when the
   * delay's timer is running already (a busy service fills a request long before the delay ends, and
   * traces held for the whole delay kept the writer's heap collecting in full: at 2,000 req/s, 7
   * Mark-Compacts in 8 s when waiting for the 1 s delay, 0-1 when sent at once, as without export).
   */
  private schedule (): void {
    if (this.closed || this.sending !== null || this.queue.length === 0) return
    const full = this.bytes >= this.tuning.maxRequestBytes
    if (this.timer !== null) {
      // With nothing being sent, the timer running is the delay's (a retry's runs while its batch is being sent).
      if (!full || this.sendingNow) return
      clearTimeout(this.timer)
    }
    this.sendingNow = full
    this.timer = setTimeout(() => {
      this.sendingNow = false
      this.timer = null
      this.sending = this.nextBatch()
      this.send()
    }, full ? 0 : this.tuning.delayMs)
    this.timer.unref()
  }

  private nextBatch (): Batch {
    const batch: Batch = { traces: [], spans: 0, bytes: 0, attempts: 0 }
    for (let trace = this.queue[0]; trace !== undefined; trace = this.queue[0]) {
      if (batch.traces.length > 0 && batch.bytes + trace.frames.length > this.tuning.maxRequestBytes) break
      this.queue.shift()
      batch.traces.push(trace)
      batch.spans += trace.spans
      batch.bytes += trace.frames.length
    }
    this.queuedSpans -= batch.spans
    return batch
  }

  private send (): void {
    const batch = this.sending
    if (batch === null) return
    this.attempt = this.post(batch, this.settings.timeoutMs).then(outcome => {
      this.attempt = null
      if (this.closed) return
      this.settle(batch, outcome, true)
    })
  }

  /** Counts the batch as exported or dropped, or has it tried again later. */
  private settle (batch: Batch, outcome: Outcome, mayRetry: boolean): void {
    batch.attempts++
    if (outcome.ok) {
      this.bytes -= batch.bytes
      this.state.exportedSpans += batch.spans
      if (this.state.state !== 'ok') Object.assign(this.state, { state: 'ok', since: null, reason: null })
      this.finish(batch)
      this.reportNow()
      return
    }
    if (mayRetry && outcome.retry && batch.attempts < this.tuning.maxAttempts) {
      const backOff = Math.min(this.tuning.firstRetryMs * 2 ** (batch.attempts - 1), this.tuning.maxRetryMs) * (0.8 + Math.random() * 0.4)
      const delayMs = outcome.retryAfterMs === null ? backOff : Math.min(outcome.retryAfterMs, this.tuning.maxRetryAfterMs)
      this.enter('retrying', `${outcome.reason}; try ${batch.attempts + 1} of ${this.tuning.maxAttempts} in ${(delayMs / 1000).toFixed(1)} s`)
      this.timer = setTimeout(() => {
        this.timer = null
        this.send()
      }, delayMs)
      this.timer.unref()
      return
    }
    this.bytes -= batch.bytes
    this.finish(batch)
    this.drop(batch.spans, outcome.retry ? `${outcome.reason} (after ${batch.attempts} tries)` : outcome.reason)
  }

  private finish (batch: Batch): void {
    if (this.sending === batch) this.sending = null
    this.schedule()
  }

  private drop (spans: number, reason: string): void {
    this.state.droppedSpans += spans
    this.enter('failing', `${reason}; ${spans} span(s) dropped`)
  }

  private enter (state: 'retrying' | 'failing', reason: string): void {
    if (this.state.state !== state) this.state.since = new Date().toISOString()
    this.state.state = state
    this.state.reason = reason
    this.reportNow()
  }

  private reportNow (): void {
    this.report(this.snapshot())
  }

  private async post (batch: Batch, timeoutMs: number): Promise<Outcome> {
    let answer: PostAnswer
    try {
      // Closing cancels a request in flight; the last tries made while closing are bound by their timeout only.
      answer = await this.poster.post(this.encoding.request(batch.traces), { ...this.settings.headers, 'content-type': this.encoding.contentType }, timeoutMs, this.closed ? NEVER : this.closing.signal)
    } catch (err) {
      return { ok: false, retry: true, reason: `the collector could not be reached (${(err as Error).message})`, retryAfterMs: null }
    }
    if (answer.status >= 200 && answer.status < 300) return { ok: true }
    const retry = RETRYABLE.has(answer.status)
    return { ok: false, retry, reason: `the collector answered HTTP ${answer.status}`, retryAfterMs: retry ? retryAfterMs(answer.retryAfter) : null }
  }
}
