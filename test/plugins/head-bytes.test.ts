// The bytes of a request head kept between reads (plugins/rejected-requests/head-bytes.ts), on a
// plain Node HTTP server: what is kept, its bound, and that nothing stays once the head is
// complete, rejected or its connection closed. Each piece is written once the server has read the
// ones before it (its socket's bytesRead), so the server's reads are split there.
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerOptions } from 'node:http'
import { connect, Socket, type AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { keepHeadBytes, keptHeadBytes, MAX_KEPT, takeHeadBytes } from '../../plugins/rejected-requests/head-bytes.js'
import { waitFor } from '../helpers/wait-for.js'

interface Rejection { code: string | undefined, earlier: Buffer | undefined, rawPacket: unknown }

/** A server answering "ok" whose connections keep their head bytes; a rejection takes them. */
async function keepingServer (t: Test, options: ServerOptions = {}): Promise<{ server: Server, accepted: Socket[], rejections: Rejection[], port: number }> {
  const server = createServer(options, (_request: IncomingMessage, response) => { response.end('ok') })
  const accepted: Socket[] = []
  const rejections: Rejection[] = []
  server.on('connection', (socket: Socket) => {
    t.ok(keepHeadBytes(socket), 'the parser is watched')
    accepted.push(socket)
  })
  server.on('clientError', (error: Error & { code?: string, rawPacket?: unknown }, socket: Socket) => {
    rejections.push({ code: error.code, earlier: takeHeadBytes(socket), rawPacket: error.rawPacket })
    socket.destroy()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return { server, accepted, rejections, port: (server.address() as AddressInfo).port }
}

/** A client whose writes are each read by the server before `write` resolves. */
async function client (port: number, accepted: Socket[]) {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let received = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => { received += chunk })
  await once(socket, 'connect')
  let written = 0
  let peer: Socket | undefined
  await waitFor(() => (peer = accepted.find(candidate => candidate.remotePort === socket.localPort)) !== undefined, { what: 'the server\'s socket' })
  const server = peer as Socket
  return {
    server,
    received: () => received,
    write: async (bytes: string): Promise<void> => {
      socket.write(bytes)
      written += Buffer.byteLength(bytes)
      await waitFor(() => server.bytesRead >= written || server.destroyed, { what: `the server to read ${written} bytes` })
    },
    destroy: () => { socket.destroy() }
  }
}

t.test('a head in several reads: each read that ends inside it is kept, and freed once the head is complete', async t => {
  const { accepted, port } = await keepingServer(t)
  const connection = await client(port, accepted)
  const first = `GET /x HTTP/1.1\r\nHost: localhost\r\nX-A: ${'a'.repeat(1000)}`
  await connection.write(first)
  t.equal(keptHeadBytes(connection.server), first.length, 'the first read')
  await connection.write('b'.repeat(2000))
  t.equal(keptHeadBytes(connection.server), first.length + 2000, 'and the second')
  await connection.write('\r\n\r\n')
  await waitFor(() => connection.received().includes('ok'), { what: 'the answer' })
  t.equal(keptHeadBytes(connection.server), 0, 'nothing once the head is complete')
  connection.destroy()
})

t.test('normal requests, each head in one read: nothing is copied or kept', async t => {
  const { accepted, port } = await keepingServer(t)
  const connection = await client(port, accepted)
  const parser = (connection.server as Socket & { parser: { getCurrentBuffer: () => Buffer } }).parser
  let copies = 0
  const getCurrentBuffer = parser.getCurrentBuffer
  parser.getCurrentBuffer = function (this: unknown) {
    copies++
    return getCurrentBuffer.call(this)
  }
  for (let i = 1; i <= 5; i++) {
    await connection.write('GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await waitFor(() => connection.received().split('ok').length > i, { what: `answer ${i}` })
    t.equal(keptHeadBytes(connection.server), 0)
  }
  t.equal(copies, 0, 'no read was copied')
  connection.destroy()
})

t.test(`at most ${MAX_KEPT} bytes a connection, the last ones; nothing once the connection closes`, async t => {
  // A server that allows a 1 MiB head: 120 KB of it are read without a rejection.
  const { accepted, port } = await keepingServer(t, { maxHeaderSize: 1024 * 1024 })
  const connection = await client(port, accepted)
  let sent = 'GET /x HTTP/1.1\r\nHost: localhost\r\nX-A: '
  await connection.write(sent)
  for (const letter of ['b', 'c', 'd', 'e']) {
    const piece = letter.repeat(30_000)
    await connection.write(piece)
    sent += piece
    t.ok(keptHeadBytes(connection.server) <= MAX_KEPT, `within the bound after ${sent.length} bytes`)
  }
  t.equal(keptHeadBytes(connection.server), MAX_KEPT, 'the bound, reached')
  t.equal(takeHeadBytes(connection.server)?.toString('latin1'), sent.slice(-MAX_KEPT), 'the last bytes read')
  t.equal(keptHeadBytes(connection.server), 0, 'taken: forgotten')
  await connection.write('f'.repeat(100))
  t.equal(keptHeadBytes(connection.server), 100, 'the head goes on')
  connection.destroy()
  await once(connection.server, 'close')
  t.equal(keptHeadBytes(connection.server), 0, 'freed when the connection closes')
})

t.test('a rejected head: the rejection takes the bytes read before its packet; later reads are not kept', async t => {
  const { accepted, rejections, port } = await keepingServer(t)
  const connection = await client(port, accepted)
  const first = `GET /${'a'.repeat(10_000)}`
  await connection.write(first)
  await connection.write('a'.repeat(10_000))
  await waitFor(() => rejections.length > 0, { what: 'the rejection' })
  const [rejection] = rejections
  t.equal(rejection?.code, 'HPE_HEADER_OVERFLOW')
  t.equal(rejection?.earlier?.toString('latin1'), first, 'the read before the one that crossed the limit')
  t.equal((rejection?.rawPacket as Buffer).toString('latin1'), 'a'.repeat(10_000), 'the packet: that read alone')
  t.equal(keptHeadBytes(connection.server), 0, 'nothing left')
})

t.test('a socket without Node\'s HTTP parser is not watched', async t => {
  t.notOk(keepHeadBytes(new Socket()))
  t.equal(takeHeadBytes(new Socket()), undefined)
})
