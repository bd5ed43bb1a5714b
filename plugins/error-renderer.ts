import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'
import { HttpError } from '../lib/http-error.js'
import { PAGE_CSP_HEADER } from '../lib/page-policy.js'

/** The error page's headers: the profiler pages' policy (no script, the layout's styles, no framing), no sniffing. */
const HTML_PAGE_HEADERS = { 'content-security-policy': PAGE_CSP_HEADER, 'x-content-type-options': 'nosniff' }
/**
 * Turns an error thrown by a library (Fastify, a plugin, SQLite) into the error the client sees,
 * or answers undefined when the error is not of its kind. Each plugin adds the rewordings of the
 * errors it causes, beside the code that causes them; the renderer only applies them.
 */
type ErrorRewording = (error: FastifyError, request: FastifyRequest) => Error | undefined

declare module 'fastify' {
  interface FastifyInstance {
    /** Adds a rewording, tried after the ones added before it (the first that answers wins). */
    addErrorRewording: (rewording: ErrorRewording) => void
  }
  interface FastifyRequest {
    /** The error as rendered to the client (its cause chain leads to what was thrown). */
    renderedError: Error | null
  }
}

/** The body of every error response in JSON (route schemas declare it, the OpenAPI document shows it). */
export const ErrorResponse = Type.Object({
  statusCode: Type.Integer({ description: 'The HTTP status, repeated' }),
  error: Type.String({ description: 'The status text, e.g. `Not Found`' }),
  message: Type.String({ description: 'What is wrong, in one sentence' })
})

function statusOf (error: Error & { statusCode?: number, validation?: unknown }): number {
  if (error.validation !== undefined) return 400
  const status = error.statusCode
  return status !== undefined && status >= 400 && status <= 599 ? status : 500
}

/** Renders a page of the views (the reply's, or the instance's for an answer outside Fastify's lifecycle). */
type RenderPage = (page: string, data: Record<string, unknown>) => Promise<string>

/**
 * The body of an error answer: the error page for a client that prefers HTML, else the JSON shape.
 * Also used for requests the HTTP parser rejected (plugins/rejected-requests), which never reach
 * the error handler.
 */
export async function errorBody (render: RenderPage, statusCode: number, message: string, html: boolean): Promise<{ type: string, body: string, headers: Record<string, string> }> {
  const statusText = STATUS_CODES[statusCode] ?? 'Error'
  if (html) {
    const body = await render('error.hbs', { title: `${statusCode} ${statusText}`, statusCode, statusText, message })
    return { type: 'text/html; charset=utf-8', body, headers: HTML_PAGE_HEADERS }
  }
  return { type: 'application/json; charset=utf-8', body: JSON.stringify({ statusCode, error: statusText, message }), headers: {} }
}

function prefersHtml (request: FastifyRequest): boolean {
  return request.accepts().type(['application/json', 'text/html']) === 'text/html'
}

/** One renderer for every error: JSON by default, an HTML page for clients that prefer it. */
export default fp(async function errorRendererPlugin (app) {
  const production = app.config.production
  const rewordings: ErrorRewording[] = []
  const reword = (error: FastifyError, request: FastifyRequest): Error => {
    for (const rewording of rewordings) {
      const reworded = rewording(error, request)
      if (reworded !== undefined) return reworded
    }
    return error
  }
  app.decorate('addErrorRewording', (rewording: ErrorRewording) => { rewordings.push(rewording) })
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
    // Sent as text: a route's response schema for this status (the poll's 503 "degraded" body)
    // must not be applied to an error (a shed 503 on the poll failed to serialise: a 500).
    const { type, body, headers } = await errorBody(async (page, data) => await reply.viewAsync(page, data), statusCode, message, prefersHtml(request))
    return reply.headers(headers).type(type).send(body)
  })
}, { name: 'error-renderer', dependencies: ['views', '@fastify/accepts'] })
