// A webhook receiver on loopback for the alerts' tests: records every request (headers, body, when)
// and answers each as told: a status, or never ('hang': the socket is held until the test ends).
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface Received { headers: IncomingHttpHeaders, body: string, json: Record<string, any>, answer: number | 'hang', atMs: number }

export interface Receiver {
  url: string
  received: Received[]
  /** The bodies answered with a 2xx, in the order they came. */
  delivered: () => Array<Record<string, any>>
  /** Whether a request is being held (answered 'hang', not yet given up by the sender). */
  holding: () => boolean
}

/** `answers` are used in turn, one per request; past them every request gets 200. */
export async function webhookReceiver (t: Test, answers: Array<number | 'hang'> = []): Promise<Receiver> {
  const received: Received[] = []
  const held = new Set<ServerResponse>()
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk as Buffer))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const answer = answers.shift() ?? 200
      received.push({ headers: request.headers, body, json: JSON.parse(body) as Record<string, any>, answer, atMs: Date.now() })
      if (answer === 'hang') {
        held.add(response)
        response.on('close', () => held.delete(response))
        return
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks/T0SECRET/B0`,
    received,
    delivered: () => received.filter(r => typeof r.answer === 'number' && r.answer < 300).map(r => r.json),
    holding: () => held.size > 0
  }
}

/** Whether a request's X-Profiler-Signature is the HMAC-SHA256 of `<X-Profiler-Timestamp>.<body>` with `secret`. */
export function signatureVerifies (received: Received, secret: string): boolean {
  const timestamp = String(received.headers['x-profiler-timestamp'])
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${received.body}`).digest('hex')}`
  return /^\d+$/.test(timestamp) && received.headers['x-profiler-signature'] === expected
}
