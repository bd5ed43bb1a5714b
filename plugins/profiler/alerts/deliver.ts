// One attempt to deliver a notification to a webhook, bounded by its timeout, and the back-off
// between attempts. What an attempt met is told by a status code, "timeout" or a network error
// code: never the URL (it may carry the hook's token).
import type { Webhook } from '../../../lib/alerts/rules-file.js'
import { signature } from './notification.js'

/** The wait before attempt n+1: 1 s, 2 s, 4 s... at most 5 minutes. */
export function backoffMs (attempts: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempts - 1), 300_000)
}

/** A delivery still failing this long after it was queued is given up (recorded as failed). */
export const GIVE_UP_AFTER_MS = 3_600_000

/** null: delivered (a 2xx answer); else why not. */
export async function attempt (webhook: Webhook, body: string, closing: AbortSignal): Promise<string | null> {
  const timestamp = Math.floor(Date.now() / 1000)
  try {
    const response = await fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'profiler-alerts',
        'x-profiler-timestamp': String(timestamp),
        'x-profiler-signature': signature(webhook.secret, timestamp, body)
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(webhook.timeoutMs), closing])
    })
    // The answer's body is not read: dropped, so that the connection is freed.
    await response.body?.cancel().catch(() => {})
    return response.status >= 200 && response.status < 300 ? null : `HTTP ${response.status}`
  } catch (err) {
    const error = err as Error & { cause?: { code?: unknown } }
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return `timeout after ${webhook.timeoutMs} ms`
    const code = error.cause?.code
    return typeof code === 'string' && /^[A-Z_]{1,40}$/.test(code) ? code : 'network error'
  }
}
