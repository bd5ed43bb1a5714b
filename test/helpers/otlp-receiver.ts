// A real OTLP/HTTP receiver on loopback for the export's tests: takes POST /v1/traces, keeps every
// request (headers, body, when it came), answers what the test says, and decodes bodies with the
// official definitions' generated decoder (otlp-decode.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Test } from 'tap'
import { decodeJson, decodeProtobuf, type DecodedRequest } from './otlp-decode.js'

export interface Received { at: number, headers: IncomingMessage['headers'], body: Buffer, status: number }

/** What the receiver does with a request: an HTTP answer, or `vanish` (the connection destroyed, no answer). */
export type Answer = { status: number, headers?: Record<string, string> } | 'vanish'

export class OtlpReceiver {
  readonly received: Received[] = []
  /** Decides each answer (200 by default), seeing how many requests came before. */
  answer: (index: number) => Answer = () => ({ status: 200 })
  private server: Server | null = null
  private readonly sockets = new Set<Socket>()
  port = 0

  get url (): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Listens (on `port` when given: the receiver coming back where it was). */
  async start (port = this.port): Promise<void> {
    const server = createServer((request, response) => { this.handle(request, response) })
    server.on('connection', socket => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
    await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
    this.port = (server.address() as AddressInfo).port
    this.server = server
  }

  /** Goes away: no more connections are accepted and the open ones are cut. */
  async stop (): Promise<void> {
    const server = this.server
    if (server === null) return
    this.server = null
    const closed = new Promise(resolve => server.close(resolve))
    for (const socket of this.sockets) socket.destroy()
    await closed
  }

  /** The bodies the receiver took (answered 2xx), decoded. */
  accepted (): DecodedRequest[] {
    return this.received.filter(request => request.status >= 200 && request.status < 300).flatMap(request =>
      request.headers['content-type'] === 'application/json' ? decodeJson(request.body) : decodeProtobuf(request.body))
  }

  private handle (request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const answer = this.answer(this.received.length)
      const entry: Received = { at: Date.now(), headers: request.headers, body: Buffer.concat(chunks), status: answer === 'vanish' ? 0 : answer.status }
      this.received.push(entry)
      if (request.url !== '/v1/traces' || request.method !== 'POST') {
        response.writeHead(404).end()
        return
      }
      if (answer === 'vanish') {
        request.socket.destroy()
        return
      }
      const json = request.headers['content-type'] === 'application/json'
      response.writeHead(answer.status, { 'content-type': json ? 'application/json' : 'application/x-protobuf', ...answer.headers })
      response.end(json ? '{}' : '')
    })
  }
}

/** A receiver listening on loopback, stopped when the test ends. */
export async function otlpReceiver (t: Test): Promise<OtlpReceiver> {
  const receiver = new OtlpReceiver()
  await receiver.start(0)
  t.teardown(async () => { await receiver.stop() })
  return receiver
}
