import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

// The requests of a connection whose answers are not over yet. HTTP/1.1 answers pipelined requests
// in order, so when the parser rejects a request, the ones read before it on the same connection
// (already running: a database write may be under way) are answered first, then the rejection.

export interface Exchange { request: IncomingMessage, response: ServerResponse }

const EXCHANGES = Symbol('exchanges in flight')
const LAST = Symbol('last request')
type TrackedSocket = Socket & { [EXCHANGES]?: Set<Exchange>, [LAST]?: IncomingMessage }

/** For the server's `request` event: keeps the exchange with its connection until its answer is over. */
export function trackExchange (request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket as TrackedSocket
  const exchanges = socket[EXCHANGES] ??= new Set()
  const exchange = { request, response }
  exchanges.add(exchange)
  socket[LAST] = request
  response.once('close', () => { exchanges.delete(exchange) })
}

/** The exchanges of a connection whose answers are not over, oldest first. */
export function exchangesInFlight (socket: Socket): Exchange[] {
  return [...((socket as TrackedSocket)[EXCHANGES] ?? [])]
}

/** The last request read on a connection (its answer may be over, its body not: answered before it was read). */
export function lastRequest (socket: Socket): IncomingMessage | undefined {
  return (socket as TrackedSocket)[LAST]
}

/** Resolves once the answers in flight now are over (sent, or the connection closed), or after `timeoutMs` at most. */
export async function answersOver (socket: Socket, timeoutMs: number): Promise<void> {
  const pending = exchangesInFlight(socket)
  if (pending.length === 0 || socket.destroyed) return
  await new Promise<void>(resolve => {
    let left = pending.length
    const done = (): void => {
      clearTimeout(timer)
      socket.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, timeoutMs)
    timer.unref()
    socket.once('close', done)
    for (const { response } of pending) {
      response.once('close', () => { if (--left === 0) done() })
    }
  })
}
