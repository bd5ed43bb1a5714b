import swagger, { type SwaggerTransformObject } from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema } from 'fastify'
import fp from 'fastify-plugin'
import { ErrorResponse } from './error-renderer.js'
import { ACCEPTED_CONTENT_TYPES } from './request-body/index.js'

const OPENAPI_PATH = '/openapi.json'
const REFERENCE_PAGE_PREFIX = '/docs'
/** Operator routes, not part of the business API's contract. */
const OPERATOR_PREFIXES = ['/_profiler']

/** Answered by the routing layer for every path of the API, before any operation runs. */
const ROUTING_RESPONSES = {
  405: {
    ...ErrorResponse,
    description: 'Another method than this one on this path (answered by the routing layer; the `Allow` header lists the methods)',
    headers: { allow: { type: 'string', description: 'The methods this path accepts, e.g. `POST`' } }
  }
}

/** What a client that prefers `text/html` (a browser) gets instead of the JSON error (plugins/error-renderer.ts). */
const HTML_ERROR_PAGE = { type: 'string', description: 'The error page: the same status, status text and message, as HTML' }

interface ResponseSchema { description?: string, headers?: unknown, content?: unknown, [key: string]: unknown }

/**
 * An error answer in both media types the error renderer sends: its JSON schema as declared, the
 * HTML page for `Accept: text/html`. Its description and headers stay on the response.
 */
function withHtmlErrorPage (response: ResponseSchema): ResponseSchema {
  if (response.content !== undefined) return response
  const { description, headers, ...schema } = response
  return {
    ...(description === undefined ? {} : { description }),
    ...(headers === undefined ? {} : { headers }),
    content: { 'application/json': { schema }, 'text/html': { schema: HTML_ERROR_PAGE } }
  }
}

/**
 * What the document says about a route beyond its own schema: the body types the request-body
 * transformer accepts, the routing layer's 405, and the HTML page of every error. Operator routes
 * are left out.
 */
function describeRoute ({ schema, url }: { schema: FastifySchema, url: string }): { schema: FastifySchema, url: string } {
  if (OPERATOR_PREFIXES.some(prefix => url === prefix || url.startsWith(`${prefix}/`))) return { schema: { ...schema, hide: true }, url }
  const declared: Record<string, ResponseSchema> = { ...ROUTING_RESPONSES, ...(schema.response as Record<string, ResponseSchema> | undefined) }
  const response = Object.fromEntries(Object.entries(declared).map(([status, answer]) => [status, Number(status) >= 400 ? withHtmlErrorPage(answer) : answer]))
  const consumes = schema.body === undefined ? schema.consumes : (schema.consumes ?? ACCEPTED_CONTENT_TYPES)
  return { schema: { ...schema, response, ...(consumes === undefined ? {} : { consumes }) }, url }
}

interface MediaType { schema?: { required?: string[] } }
interface Operation { requestBody?: { required?: boolean, content?: Record<string, MediaType> } }

/**
 * An absent or empty body reaches the handler as `{}` (plugins/request-body/): a body is
 * required only when `{}` lacks a required property. @fastify/swagger marks every body required.
 */
const markOptionalBodies: SwaggerTransformObject = document => {
  if (!('openapiObject' in document)) return document.swaggerObject
  const paths = (document.openapiObject.paths ?? {}) as Record<string, Record<string, Operation> | undefined>
  for (const path of Object.values(paths)) {
    for (const operation of Object.values(path ?? {})) {
      const body = operation.requestBody
      if (body === undefined) continue
      body.required = Object.values(body.content ?? {}).some(media => (media.schema?.required?.length ?? 0) > 0)
    }
  }
  return document.openapiObject
}

/** The reference page (Swagger UI) under its own CSP: scripts and styles from itself only, no upgrade to https. */
async function referencePage (app: FastifyInstance): Promise<void> {
  // Not profiled when it succeeds, like the profiler's own pages.
  app.addHook('onRoute', route => { route.config = { ...route.config, profile: false } })
  await app.register(swaggerUi, {
    routePrefix: REFERENCE_PAGE_PREFIX,
    uiConfig: { url: OPENAPI_PATH },
    staticCSP: {
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      // Swagger UI sets style attributes on the elements it renders.
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'font-src': ["'self'", 'data:'],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"]
    }
  })
}

/**
 * The business API's OpenAPI 3.1 document, generated from the route schemas, at GET /openapi.json;
 * the reference page at /docs/ when `reference` is on. Register before the route groups (it
 * collects routes as they are added) and after routing-errors (its routes are mirrored there).
 */
export default fp<{ version: string, reference: boolean }>(async function apiDocsPlugin (app, { version, reference }) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Profiled API',
        version,
        description: 'Contact-centre and monitoring API. Every error answers `{ statusCode, error, message }` in JSON, ' +
          'or an HTML page with the same status and message for clients that prefer `text/html` (browsers). ' +
          'No authentication: the business API takes no credentials (hence the empty security requirement); ' +
          'the operator routes (/_profiler) are not part of this document.',
        license: { name: 'Proprietary' }
      },
      // Relative: the document is served by the API it describes, wherever that is deployed.
      servers: [{ url: '/', description: 'The server that serves this document' }],
      security: [{}],
      tags: [
        { name: 'ccenter', description: 'Contact centre' },
        { name: 'monitor', description: 'Monitoring' }
      ]
    },
    transform: describeRoute,
    transformObject: markOptionalBodies
  })

  app.get(OPENAPI_PATH, { config: { profile: false }, schema: { hide: true } }, async () => app.swagger())

  if (reference) await app.register(referencePage)
}, { name: 'api-docs', dependencies: ['routing-errors'] })
