import { isUtf8 } from 'node:buffer'
import formbody from '@fastify/formbody'
import type { Readable } from 'node:stream'
import { errorCodes, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import secureJson from 'secure-json-parse'
import { HttpError } from '../../lib/http-error.js'
import { findJsonSyntaxError } from '../../lib/json-syntax-error.js'
import { announcesBody, countedPayload, keepBodyPreview, noteBodyEnd, readBodyPreview, receivedBodyBytes } from '../profiler/index.js'

/** The body types handlers accept; any other is a 415 that lists these. */
export const ACCEPTED_CONTENT_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded']
const BODY_LIMIT = 1024 * 1024

const POISONED_KEY = '__proto__'
/** Deeper JSON is refused before it is parsed: no client of ours nests that far. */
const MAX_JSON_DEPTH = 64

/** Fastify's body errors, reworded so that the client learns what to change. */
function rewordBodyError (error: FastifyError, request: FastifyRequest): Error | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError(415, `Unsupported Content-Type "${request.headers['content-type'] ?? ''}": send ${ACCEPTED_CONTENT_TYPES.join(', ')}`,
        { cause: error, name: 'UnsupportedMediaTypeError' })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError(413, `Request body is larger than the ${BODY_LIMIT / 1024 / 1024} MiB limit (${BODY_LIMIT} bytes)`,
        { cause: error, name: 'PayloadTooLargeError' })
    default:
      return undefined
  }
}

/** Whether the quote at `at` is escaped: an odd run of backslashes just before it. */
function escapedQuote (text: string, at: number): boolean {
  let backslashes = 0
  while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++
  return backslashes % 2 === 1
}

/**
 * Whether brackets outside strings nest deeper than `limit` (a linear scan, stopped early). A string
 * is skipped to its closing quote with indexOf (the engine's own search): a body is mostly string
 * contents, and a 1 MiB one cost ~3 ms of CPU read a character at a time, ~0.3 ms so. Each
 * backslash run is counted once (the quote after it), so the scan stays linear.
 */
function nestsDeeperThan (text: string, limit: number): boolean {
  if (text.length <= limit * 2) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      let end = text.indexOf('"', i + 1)
      while (end !== -1 && escapedQuote(text, end)) end = text.indexOf('"', end + 1)
      // A string left open holds the rest of the text: no bracket after it counts.
      if (end === -1) return false
      i = end
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return true
    } else if (c === 125 || c === 93) {
      depth--
    }
  }
  return false
}

function describeType (value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  return value === null ? 'null' : `a ${typeof value}`
}

function parseJsonBody (bytes: Buffer): unknown {
  if (!isUtf8(bytes)) throw new HttpError(400, 'Request body is not valid UTF-8', { name: 'BadRequestError' })
  const text = bytes.toString('utf8')
  if (text.trim() === '') return {}
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new HttpError(400, `Request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`, { name: 'BadRequestError' })
  }
  let value: unknown
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (err) {
    // Where and why the text is not JSON, read by the project's own reader of the grammar (not from
    // the parser's message, whose wording is the engine's and quotes the body). Text that is JSON was
    // refused for a forbidden key.
    const syntax = findJsonSyntaxError(text)
    if (syntax === undefined) {
      throw new HttpError(400, 'Request body contains a forbidden key ("__proto__" or "constructor.prototype")', { cause: err, name: 'BadRequestError' })
    }
    const message = `Request body is not valid JSON (line ${syntax.line}, column ${syntax.column}): ${syntax.problem}`
    throw new HttpError(400, message, { cause: new SyntaxError(message), name: 'BadRequestError' })
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

/**
 * Any body no other parser takes. Empty, it is an absent body, whatever its Content-Type says (as
 * with Content-Length: 0, which Fastify never parses): a chunked body's size is only known once it
 * ends. One byte of it is a 415, answered once its first 64 KiB are read for the profiler (or the
 * client stopped sending: a 415 all the same; the rest is dropped as it comes); an unknown path
 * stays Fastify's 404.
 */
function emptyOrUnsupported (request: FastifyRequest, payload: Readable, done: (err: Error | null, body?: unknown) => void): void {
  if (request.is404) return done(null, undefined)
  readBodyPreview(request, payload, err => {
    if (receivedBodyBytes(request) > 0) return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE())
    done(err, undefined)
  })
}

/** Methods Fastify reads no body for. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE'])

/** A body Fastify refuses as too large from its Content-Length alone, before reading a byte of it. */
function declaredTooLarge (request: FastifyRequest): boolean {
  return Number(request.headers['content-length']) > BODY_LIMIT && !BODYLESS_METHODS.has(request.method)
}

/** The JSON request-body transformer: JSON and form bodies -> one plain object, before every handler. */
export default fp(async function jsonBodyPlugin (app) {
  app.removeAllContentTypeParsers()
  for (const type of ['application/json', /^application\/[\w.-]+\+json$/]) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, bytes, done) => {
      try {
        done(null, parseJsonBody(bytes as Buffer))
      } catch (err) {
        // The profiler shows (and replays) the body as it was sent.
        keepBodyPreview(request, bytes as Buffer)
        done(err as Error, undefined)
      }
    })
  }
  app.addContentTypeParser('*', emptyOrUnsupported)
  // A chunked body's size, for the profiler (its body probes, collect/body-size.ts); the start of a body refused
  // as too large, which no parser reads.
  app.addHook('preParsing', (request, reply, payload, done) => {
    // When the whole request has been received (the profiler's collect/body-size.ts): only a body that is read has an end.
    if (!BODYLESS_METHODS.has(request.method) && announcesBody(request)) noteBodyEnd(request, reply, payload)
    const counted = countedPayload(request, payload)
    if (!declaredTooLarge(request)) return done(null, counted)
    // Answered 413 all the same, whether the first 64 KiB came or the client went.
    readBodyPreview(request, counted, () => { done(null, counted) })
  })
  app.addHook('preValidation', toPlainObjectBody)
  app.addErrorRewording(rewordBodyError)
  // @fastify/formbody parses with fast-querystring itself. Registered after this plugin's hooks: the
  // profiler's timeline names a hook after the last plugin loaded into its instance (Fastify's pluginName).
  await app.register(formbody, { bodyLimit: BODY_LIMIT })
}, { name: 'json-body', dependencies: ['error-renderer'] })
