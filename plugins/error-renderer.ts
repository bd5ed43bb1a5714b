import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { databaseUnavailable, isDatabaseUnavailable } from '../lib/sqlite/faults.js'
import { HttpError } from '../lib/http-error.js'
import { ACCEPTED_CONTENT_TYPES, BODY_LIMIT } from './request-body.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The error as rendered to the client (its cause chain leads to what was thrown). */
    renderedError: Error | null
  }
}

/** Fastify's own errors, reworded so that the client learns what to change. */
function reword (error: FastifyError, request: FastifyRequest): Error {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError(415, `Unsupported Content-Type "${request.headers['content-type'] ?? ''}": send ${ACCEPTED_CONTENT_TYPES.join(', ')}`,
        { cause: error, name: 'UnsupportedMediaTypeError' })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError(413, `Request body is larger than the ${BODY_LIMIT / 1024 / 1024} MiB limit (${BODY_LIMIT} bytes)`,
        { cause: error, name: 'PayloadTooLargeError' })
    case 'FST_BASIC_AUTH_MISSING_OR_BAD_AUTHORIZATION_HEADER':
      return new HttpError(401, 'This page requires HTTP Basic authentication', { cause: error, name: 'UnauthorizedError' })
    default:
      return isDatabaseUnavailable(error) ? databaseUnavailable(error) : error
  }
}

function statusOf (error: Error & { statusCode?: number, validation?: unknown }): number {
  if (error.validation !== undefined) return 400
  const status = error.statusCode
  return status !== undefined && status >= 400 && status <= 599 ? status : 500
}

function prefersHtml (request: FastifyRequest): boolean {
  return request.accepts().type(['application/json', 'text/html']) === 'text/html'
}

/** One renderer for every error: JSON by default, an HTML page for clients that prefer it. */
export default fp(async function errorRendererPlugin (app) {
  const production = app.config.production
  app.decorateRequest('renderedError', null)
  app.setErrorHandler(async function renderError (thrown: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const error = reword(thrown, request)
    const statusCode = statusOf(error)
    const statusText = STATUS_CODES[statusCode] ?? 'Error'
    request.renderedError = error
    // A deliberate 503 (database outage, load shedding) is reported once by whoever declared it,
    // not once per request that meets it.
    const deliberate503 = statusCode === 503 && error instanceof HttpError
    if (statusCode >= 500 && !deliberate503) request.log.error({ err: thrown }, 'request failed')
    // Unexpected errors (bugs) are masked in production; our own HttpErrors say what they mean.
    const message = statusCode >= 500 && production && !(error instanceof HttpError) ? statusText : error.message
    if (error instanceof HttpError) reply.headers(error.headers)
    reply.code(statusCode)
    if (prefersHtml(request)) {
      const html = await reply.viewAsync('error.hbs', { title: `${statusCode} ${statusText}`, statusCode, statusText, message })
      return reply.type('text/html; charset=utf-8').send(html)
    }
    // Sent as text: a route's response schema for this status (the poll's 503 "degraded" body)
    // must not be applied to an error (a shed 503 on the poll failed to serialise: a 500).
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ statusCode, error: statusText, message }))
  })
}, { name: 'error-renderer', dependencies: ['views', '@fastify/accepts'] })
