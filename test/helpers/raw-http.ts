import { once } from 'node:events'
import type { Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { waitFor } from './wait-for.js'

// Raw bytes over a real socket, for what an HTTP client library or app.inject would refuse to send
// (conflicting Content-Length, obs-fold, HTTP/1.2, pipelined requests in one segment, a request
// target that is not a path: `OPTIONS *`, `GET http://evil.test/x`), and the answers read back.
// A string is sent as UTF-8; Node's parser reads header bytes as Latin-1.

export interface RawAnswer {
  /** 0 when the server closed the connection without an answer. */
  status: number
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>
  body: string
}

/**
 * Sends `bytes` in one write on a new connection to `address` (http://host:port) and resolves with
 * everything received once the server closes it (a reset after the answers is not a failure: the
 * server may close while the client still sends), or once `until` holds for what was received.
 */
export async function sendRaw (address: string, bytes: string | Buffer, until?: (received: string) => boolean): Promise<string> {
  const { hostname, port } = new URL(address)
  const socket = connect(Number(port), hostname)
  let received = ''
  socket.setEncoding('latin1')
  return await new Promise((resolve, reject) => {
    socket.on('data', (chunk: string) => {
      received += chunk
      if (until?.(received) === true) socket.destroy()
    })
    socket.on('error', error => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET' && (error as NodeJS.ErrnoException).code !== 'EPIPE') reject(error)
    })
    socket.on('close', () => { resolve(received) })
    socket.write(bytes)
  })
}

/**
 * Sends `pieces` in turn on a new connection to `server` (in this process, listening at `address`),
 * each written once the server's socket has read every byte written before it (its bytesRead): no
 * read of the server's holds bytes of two pieces, as when a request arrives in several TCP reads
 * on a busy machine. A piece the server has already rejected and closed on is still written (an
 * EPIPE or reset is not a failure). Resolves, like sendRaw, with everything received once the
 * server closes.
 */
export async function sendInReads (server: Server, address: string, pieces: Array<string | Buffer>): Promise<string> {
  const { hostname, port } = new URL(address)
  const accepted: Socket[] = []
  const onConnection = (socket: Socket): void => { accepted.push(socket) }
  server.on('connection', onConnection)
  const socket = connect(Number(port), hostname)
  let received = ''
  socket.setEncoding('latin1')
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk: string) => { received += chunk })
    socket.on('error', error => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET' && (error as NodeJS.ErrnoException).code !== 'EPIPE') reject(error)
    })
    socket.on('close', () => { resolve(received) })
  })
  let peer: Socket | undefined
  try {
    await once(socket, 'connect')
    // Both ends' ports are read while the connection is open (a closed socket no longer has them).
    const localPort = socket.localPort
    await waitFor(() => (peer = accepted.find(candidate => candidate.remotePort === localPort)) !== undefined, { what: 'the server\'s end of the connection' })
  } finally {
    server.off('connection', onConnection)
  }
  const serverEnd = peer as Socket
  let written = 0
  for (const piece of pieces) {
    if (written > 0) {
      const before = written
      await waitFor(() => serverEnd.bytesRead >= before || serverEnd.destroyed, { what: `the server to read the ${before} bytes written before the next piece` })
    }
    socket.write(piece)
    written += Buffer.byteLength(piece)
  }
  return await closed
}

/**
 * The HTTP/1.x answers in `text`, in order: each body framed by its Content-Length, or without one
 * running to the end (the server closed the connection after it).
 */
export function parseAnswers (text: string): RawAnswer[] {
  const answers: RawAnswer[] = []
  let rest = text
  while (/^HTTP\/1\.[01] \d{3}/.test(rest)) {
    const headEnd = rest.indexOf('\r\n\r\n')
    if (headEnd === -1) break
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      if (colon === -1) continue
      const name = line.slice(0, colon).trim().toLowerCase()
      const value = line.slice(colon + 1).trim()
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
    }
    // Latin-1: one character per byte received.
    const after = rest.slice(headEnd + 4)
    const body = headers['content-length'] === undefined ? after : after.slice(0, Number(headers['content-length']))
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8') })
    rest = after.slice(body.length)
  }
  return answers
}

/** The one answer to `bytes` (fails the caller's expectations with an empty answer when none came). */
export async function rawAnswer (address: string, bytes: string | Buffer): Promise<RawAnswer> {
  const [answer] = parseAnswers(await sendRaw(address, bytes))
  return answer ?? { status: 0, headers: {}, body: '' }
}
