// One OTLP/HTTP request: a POST of a finished body over a kept-alive connection (node:http or
// node:https). Not fetch(): its body goes through web streams, which copied each 1 MiB request
// again and cost the writer thread more than encoding the spans did (CPU profile of the writer
// thread at 1,000 req/s: cloneAsUint8Array and extractBody). The body's parts are written as they are.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

export interface PostAnswer {
  status: number
  /** The Retry-After header, as sent (null: none). */
  retryAfter: string | null
}

export interface Poster {
  /** Resolves once the answer has been read to its end; rejects when no answer came (network, timeout, signal) with an error whose message is the network error's code (ECONNREFUSED, ...) or message. */
  post: (body: Buffer[], headers: Record<string, string>, timeoutMs: number, signal: AbortSignal) => Promise<PostAnswer>
  /** Closes the kept-alive connections. */
  close: () => void
}

/** A poster to `url` (http: or https:), one connection kept alive between requests. */
export function createPoster (url: string): Poster {
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 1 }) : new HttpAgent({ keepAlive: true, maxSockets: 1 })
  const send = secure ? httpsRequest : httpRequest
  return {
    post: async (body, headers, timeoutMs, signal) => await new Promise<PostAnswer>((resolve, reject) => {
      let settled = false
      // The whole request's bound (OTEL_EXPORTER_OTLP_TIMEOUT), not the socket's idleness: a
      // collector that answers a byte at a time does not hold the export for longer.
      const timer = setTimeout(() => {
        fail(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }))
        request.destroy()
      }, timeoutMs)
      const fail = (err: Error & { code?: string }): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        reject(new Error(err.code ?? err.message))
      }
      const length = body.reduce((sum, part) => sum + part.length, 0)
      const request = send(target, { method: 'POST', agent, headers: { ...headers, 'content-length': String(length) }, signal }, (response: IncomingMessage) => {
        // Read (and dropped) to its end, so that the connection is kept for the next request.
        response.on('data', () => {})
        response.on('error', fail)
        response.on('end', () => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          const retryAfter = response.headers['retry-after']
          resolve({ status: response.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null })
        })
      })
      request.on('error', fail)
      // The parts in one write (writev), not a copy of them into one buffer.
      request.cork()
      for (const part of body) request.write(part)
      request.end()
    }),
    close: () => { agent.destroy() }
  }
}
