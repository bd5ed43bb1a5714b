import { connect } from 'node:net'

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
