import { once } from 'node:events'
import { connect } from 'node:net'

export interface RawAnswer {
  /** 0 when the server closed the connection without an answer. */
  status: number
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>
  body: string
}

/**
 * Sends `request` as bytes on a new connection to 127.0.0.1:`port` and reads the answer until the
 * server closes it (send `Connection: close`): for what fetch and app.inject cannot send, such as a
 * request target that is not a path (`OPTIONS *`, `GET http://evil.test/x`). A string is sent as
 * UTF-8; Node's parser reads header bytes as Latin-1.
 */
export async function rawRequest (port: number, request: string | Buffer): Promise<RawAnswer> {
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => { chunks.push(chunk) })
  // A reset after the answer (the server closed while bytes of ours were in flight) is not a failure.
  socket.on('error', () => {})
  const closed = once(socket, 'close')
  socket.write(request)
  await closed
  return parseAnswer(Buffer.concat(chunks).toString('latin1'))
}

function parseAnswer (text: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n')
  const [statusLine = '', ...lines] = (end === -1 ? text : text.slice(0, end)).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon === -1) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]
  return { status: status === undefined ? 0 : Number(status), headers, body: end === -1 ? '' : Buffer.from(text.slice(end + 4), 'latin1').toString('utf8') }
}
