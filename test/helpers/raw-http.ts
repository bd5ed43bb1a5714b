import { connect } from 'node:net'

// Raw bytes over a real socket, for what an HTTP client library would refuse to send (conflicting
// Content-Length, obs-fold, HTTP/1.2, pipelined requests in one segment), and the answers read back.

export interface RawAnswer {
  status: number
  /** Lower-case names. */
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

/** The HTTP/1.1 answers in `text`, in order (bodies framed by Content-Length). */
export function parseAnswers (text: string): RawAnswer[] {
  const answers: RawAnswer[] = []
  let rest = text
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n')
    if (headEnd === -1) break
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    const bodyBytes = Buffer.from(rest.slice(headEnd + 4), 'latin1').subarray(0, length)
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: bodyBytes.toString('utf8') })
    rest = rest.slice(headEnd + 4 + bodyBytes.toString('latin1').length)
  }
  return answers
}

/** The one answer to `bytes` (fails the caller's expectations with an empty answer when none came). */
export async function rawAnswer (address: string, bytes: string | Buffer): Promise<RawAnswer> {
  const [answer] = parseAnswers(await sendRaw(address, bytes))
  return answer ?? { status: 0, headers: {}, body: '' }
}
