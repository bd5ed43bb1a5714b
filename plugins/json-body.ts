import formbody from '@fastify/formbody'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { parse as parseQueryString } from 'fast-querystring'
import secureJson from 'secure-json-parse'
import { HttpError } from './http-error.js'

/** The body types handlers accept; any other is a 415 that lists these. */
export const ACCEPTED_CONTENT_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded']
export const BODY_LIMIT = 1024 * 1024

const POISONED_KEY = '__proto__'

/** Node says "... at position N" (or "Unexpected end of JSON input"); turn that into line and column. */
function whereParsingFailed (error: Error, text: string): string {
  const match = /position (\d+)/.exec(error.message)
  const position = match === null ? text.length : Number(match[1])
  const before = text.slice(0, position)
  const line = before.split('\n').length
  const column = position - before.lastIndexOf('\n')
  return `line ${line}, column ${column}`
}

function describeType (value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  return value === null ? 'null' : `a ${typeof value}`
}

function parseJsonBody (_request: FastifyRequest, text: string): unknown {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (err) {
    const error = err as Error
    if (/forbidden (prototype|constructor) property/.test(error.message)) {
      throw new HttpError(400, 'Request body contains a forbidden key ("__proto__" or "constructor.prototype")', { cause: error, name: 'BadRequestError' })
    }
    throw new HttpError(400, `Request body is not valid JSON (${whereParsingFailed(error, text)}): ${error.message}`, { cause: error, name: 'BadRequestError' })
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, `Request body must be a JSON object, not ${describeType(value)}`, { name: 'BadRequestError' })
  }
  return value
}


/**
 * Handlers see one plain object whatever the body type: an absent body is `{}`,
 * form fields (null-prototype objects from the parser) become a plain object.
 */
async function toPlainObjectBody (request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const body = request.body
  if (body === undefined || body === null) {
    request.body = {}
    return
  }
  if (typeof body === 'object' && Object.getPrototypeOf(body) !== Object.prototype) {
    if (Object.hasOwn(body, POISONED_KEY)) {
      throw new HttpError(400, 'Request body contains a forbidden key ("__proto__")', { name: 'BadRequestError' })
    }
    request.body = Object.assign({}, body)
  }
}

/** The JSON request-body transformer: JSON and form bodies -> one plain object, before every handler. */
export default fp(async function jsonBodyPlugin (app) {
  app.removeAllContentTypeParsers()
  for (const type of ['application/json', /^application\/[\w.-]+\+json$/]) {
    app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: BODY_LIMIT }, (request, text, done) => {
      try {
        done(null, parseJsonBody(request, text as string))
      } catch (err) {
        done(err as Error, undefined)
      }
    })
  }
  await app.register(formbody, { bodyLimit: BODY_LIMIT, parser: text => parseQueryString(text) })
  app.addHook('preValidation', toPlainObjectBody)
}, { name: 'json-body' })
