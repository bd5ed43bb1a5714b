import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'

/** How long a connection is kept, after its last answer, for the client to read it and close. */
const LINGER_MS = 2000

/**
 * Writes a whole HTTP/1.1 answer on a connection no ServerResponse can use (the parser failed on
 * it, or CONNECT took it over) and closes it. The close is lingering: our side ends first, and the
 * socket is destroyed when the client closes or after LINGER_MS. Destroying it at once (Node's and
 * Fastify's way) resets the connection while the client is still sending (the rest of a 100 KB
 * header), and a reset can discard the answer before the client has read it.
 */
export function writeAnswer (socket: Socket, statusCode: number, headers: Record<string, string>, body: string): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const lines = [`HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? 'Error'}`]
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  lines.push(`content-length: ${Buffer.byteLength(body)}`, `date: ${new Date().toUTCString()}`, 'connection: close', '', body)
  socket.end(lines.join('\r\n'))
  closeSoon(socket)
}

/** Ends the connection and destroys it once the client has closed too, or after LINGER_MS. */
export function closeSoon (socket: Socket): void {
  if (socket.destroyed) return
  if (socket.writable) socket.end()
  const timer = setTimeout(() => { socket.destroy() }, LINGER_MS)
  timer.unref()
  socket.once('close', () => { clearTimeout(timer) })
}
