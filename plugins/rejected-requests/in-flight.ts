import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyReply } from 'fastify'
import type { HttpError } from '../../lib/http-error.js'

// The last request read on a connection, and its answer. HTTP/1.1 answers pipelined requests in
// order (Node holds a later answer until the earlier ones are sent), so when the parser rejects a
// request, the answers of the ones read before it (already running: a database write may be under
// way) are over once the last one's is: then the rejection is answered. One property per request,
// no listener: this runs for every request.

export interface Exchange {
  request: IncomingMessage
  response: ServerResponse
  /** Its reply once Fastify has run it past preParsing (its body may be read from then on). */
  reply: FastifyReply | undefined
  /** The parser's rejection, found before preParsing: thrown there. */
  error: HttpError | undefined
}

const LAST = Symbol('last exchange')
type TrackedSocket = Socket & { [LAST]?: Exchange }

/** For the server's `request` event. */
export function trackExchange (request: IncomingMessage, response: ServerResponse): void {
  // Every field from the start: a field added later would change the object's shape per request.
  (request.socket as TrackedSocket)[LAST] = { request, response, reply: undefined, error: undefined }
}

/** The last request read on a connection, and its answer (which may be over while its body is not: answered before it was read). */
export function lastExchange (socket: Socket): Exchange | undefined {
  return (socket as TrackedSocket)[LAST]
}

function isOver (response: ServerResponse): boolean {
  return response.writableFinished || response.destroyed
}

/** Resolves once the connection's answers are over (sent, or the connection closed), or after `timeoutMs` at most. */
export async function answersOver (socket: Socket, timeoutMs: number): Promise<void> {
  const response = lastExchange(socket)?.response
  if (response === undefined || isOver(response) || socket.destroyed) return
  await new Promise<void>(resolve => {
    const done = (): void => {
      clearTimeout(timer)
      socket.off('close', done)
      response.off('finish', done)
      resolve()
    }
    const timer = setTimeout(done, timeoutMs)
    timer.unref()
    socket.once('close', done)
    response.once('finish', done)
  })
}
