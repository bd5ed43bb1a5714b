import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { HttpError } from '../../lib/http-error.js'
import { errorBody } from '../error-renderer.js'
import { originOf } from '../routing/request-origin.js'
import { originFormOf } from '../routing/request-target.js'
import { answersOver, lastExchange, trackExchange, type Exchange } from './in-flight.js'
import { connectError, rejectionError, type ClientError } from './parser-errors.js'
import { prefersHtml } from './prefers-html.js'
import { readRawHead, type RawHead } from './raw-head.js'
import { closeSoon, writeAnswer } from './raw-answer.js'

// Requests Node's HTTP server rejects before Fastify sees them (conflicting Content-Length,
// obs-fold, HTTP/1.2, a 100 KB header, CONNECT...) get the service's own error answer, negotiated
// like the error renderer's, and a profile, through the same bounded queue as every request.

/** A request rejected outside Fastify's lifecycle, as far as it could be read. */
export interface RejectedRequest {
  /** The peer's address (the connection's: nothing the rejected bytes say is trusted for it). */
  ip: string
  /** '' when it could not be read. */
  method: string
  /** The origin-form target; '' when it could not be read. */
  target: string
  /** scheme://host[:port] from the Host header that could be read (localhost without one). */
  origin: string
  headers: Record<string, string>
  error: HttpError
  /** performance.now() when the rejection was seen. */
  seenAt: number
}

export interface RejectionAnswer {
  statusCode: number
  headers: Record<string, string>
  body: string
  /** The body is the JSON error shape (kept in the profile like any JSON answer). */
  json: boolean
}

/** Records a rejection about to be answered; returns the headers to add (the profiler's X-Debug-Token). */
type RejectionRecorder = (request: RejectedRequest, answer: RejectionAnswer) => Record<string, string>

declare module 'fastify' {
  interface FastifyInstance {
    /** Adds a recorder of rejected requests (the profiler adds itself). */
    addRejectionRecorder: (recorder: RejectionRecorder) => void
    /** Answers Node's `clientError` (see answerClientError). */
    rejectClientError: (error: ClientError, socket: Socket) => void
  }
}

const REJECTED = Symbol('connection rejected')
type MarkedSocket = Socket & { [REJECTED]?: boolean }

/** How long the answers of requests read before a rejected one may take, at most (the server's requestTimeout, else 30 s). */
function answerWaitMs (app: FastifyInstance): number {
  const timeout = app.server.requestTimeout
  return timeout > 0 ? timeout : 30_000
}

/**
 * The rejected request had a complete head, so Fastify is running it (the parser failed in its
 * chunked body, or the body did not come in time): the error is answered through Fastify (the
 * error renderer, a profile like any request's, with its route), with `Connection: close`, after
 * which Node closes the connection. Before preParsing, the hook below throws the error; once its
 * body is being read (the request flows to a reader), the error is sent as the reply, and the
 * reader, waiting for bytes that will not come, is left unfinished. A body nobody reads (a GET's)
 * changes nothing: Fastify answers the request as it would.
 */
function handToFastify (exchange: Exchange, error: HttpError): void {
  const { request, response, reply } = exchange
  if (!response.headersSent) response.setHeader('connection', 'close')
  if (reply === undefined) exchange.error = error
  else if (request.readableFlowing === true && !reply.sent) reply.send(error)
}

/** The head of a request Node parsed but that never reaches Fastify (CONNECT). */
function parsedHead (request: IncomingMessage): RawHead {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return { method: request.method ?? '', target: request.url ?? '', headers }
}

/** Waits for the answers in flight on the connection, then answers the rejection, records it and closes. */
async function answerRejection (app: FastifyInstance, recorders: RejectionRecorder[], socket: Socket, head: RawHead, error: HttpError): Promise<void> {
  const seenAt = performance.now()
  await answersOver(socket, answerWaitMs(app))
  const scheme = (socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http'
  const rejected: RejectedRequest = {
    ip: socket.remoteAddress ?? '',
    method: head.method,
    target: head.target === '' ? '' : originFormOf(head.target, head.headers.host),
    origin: originOf(scheme, head.headers.host ?? ''),
    headers: head.headers,
    error,
    seenAt
  }
  const html = prefersHtml(head.headers.accept)
  const { type, body, headers: pageHeaders } = await errorBody(async (page, data) => await app.view(page, data), error.statusCode, error.message, html)
  const answer: RejectionAnswer = { statusCode: error.statusCode, headers: { ...error.headers, ...pageHeaders, 'content-type': type }, body, json: !html }
  let headers = answer.headers
  // A connection that sent nothing before its timeout is no request (browsers open spare ones): answered, not recorded.
  const sentSomething = socket.bytesRead > 0
  if (sentSomething) for (const recorder of recorders) headers = { ...headers, ...recorder(rejected, answer) }
  if (sentSomething) app.log.info({ ip: rejected.ip, method: rejected.method, statusCode: error.statusCode, reason: error.message }, 'request rejected by the HTTP parser')
  writeAnswer(socket, error.statusCode, headers, body)
}

/** Never throws into Node's event: a failure is logged and the connection closed. */
function answerSafely (app: FastifyInstance, recorders: RejectionRecorder[], socket: Socket, head: RawHead, error: HttpError): void {
  answerRejection(app, recorders, socket, head, error).catch((err: unknown) => {
    app.log.error({ err }, 'a rejected request could not be answered')
    socket.destroy()
  })
}

/**
 * The rejections: Node's `clientError` (Fastify's clientErrorHandler option, see app.ts) and
 * CONNECT. Requests read before the rejected one on the same connection are answered first.
 */
export default fp(async function rejectedRequestsPlugin (app) {
  const recorders: RejectionRecorder[] = []
  app.decorate('addRejectionRecorder', (recorder: RejectionRecorder) => { recorders.push(recorder) })

  app.server.on('request', trackExchange)
  // Marks the connection's exchange, not the request: a property added to every request object
  // (Node's, or light-my-request's under inject) cost ~1.5 KB a request (its shape changing); and a
  // callback, not an async function: no promise a request.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const exchange = lastExchange(request.raw.socket)
    if (exchange?.request === request.raw) {
      if (exchange.error !== undefined) return done(exchange.error)
      exchange.reply = reply
    }
    done(null, payload)
  })

  app.decorate('rejectClientError', (error: ClientError, socket: Socket) => {
    const marked = socket as MarkedSocket
    // A reset connection has no one to answer; a rejected one is answered once (the parser
    // reports again on every later read).
    if (error.code === 'ECONNRESET' || socket.destroyed || marked[REJECTED] === true) return
    marked[REJECTED] = true
    const httpError = rejectionError(error)
    // A request whose head was read but not its body: Fastify has it, and may have answered it
    // already (a 404 or 415 needs no body). Either way it gets one answer, never two.
    const last = lastExchange(socket)
    if (last !== undefined && !last.request.complete) {
      if (!last.response.writableFinished && !last.response.destroyed) handToFastify(last, httpError)
      else app.log.info({ reason: httpError.message }, 'connection closed: its last request was answered before its body failed')
      answersOver(socket, answerWaitMs(app)).then(() => { closeSoon(socket) }, () => { socket.destroy() })
      return
    }
    answerSafely(app, recorders, socket, readRawHead(error.rawPacket, error.bytesParsed, error.code), httpError)
  })

  // Node hands CONNECT over without an answer (and without an error listener on the socket).
  app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    socket.on('error', () => {})
    ;(socket as MarkedSocket)[REJECTED] = true
    const head = parsedHead(request)
    answerSafely(app, recorders, socket, head, connectError(head.target))
  })
}, { name: 'rejected-requests', dependencies: ['views', 'error-renderer'] })

/**
 * Fastify's `clientErrorHandler` (called with the instance as `this`): Node's `clientError` event,
 * for a request the parser rejected or that timed out. Before the plugin is registered, the
 * connection is closed.
 */
export function answerClientError (this: FastifyInstance, error: ClientError, socket: Socket): void {
  if (this.hasDecorator('rejectClientError')) this.rejectClientError(error, socket)
  else socket.destroy()
}
