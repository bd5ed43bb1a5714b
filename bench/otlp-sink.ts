// A loopback OTLP/HTTP receiver for the benchmarks that export traces (the profiler's export, @fastify/otel's).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A loopback OTLP/HTTP sink: reads each body, answers 200, counts requests and bytes. */
export async function startOtlpSink (): Promise<{ url: string, requests: () => number, bytes: () => number, close: () => Promise<void> }> {
  let requests = 0
  let bytes = 0
  const server: Server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => { bytes += chunk.length })
    request.on('end', () => {
      requests++
      response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/x-protobuf' }).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    bytes: () => bytes,
    close: async () => { await new Promise(resolve => server.close(resolve)) }
  }
}
