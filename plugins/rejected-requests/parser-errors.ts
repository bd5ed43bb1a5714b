import { maxHeaderSize } from 'node:http'
import { HttpError } from '../../lib/http-error.js'

/**
 * What Node's HTTP server hands to `clientError`: llhttp's code (HPE_*) and reason, or a timeout;
 * for a parser error, `bytesParsed` and `rawPacket` as Node documents them on that event.
 */
export interface ClientError extends Error {
  code?: string
  reason?: string
  /** How far the parser got in `rawPacket`. */
  bytesParsed?: number
  /** The read the parser failed in (a Buffer): only that read, not the ones before it. */
  rawPacket?: unknown
}

/** Node's limit on the request line and headers together (16 KiB unless `--max-http-header-size` says otherwise). */
const HEADER_LIMIT_KIB = Math.round(maxHeaderSize / 1024)
/** The longest target quoted in a message. */
const MAX_QUOTED = 200

/** What each llhttp error means for the client, in words; the parser's own reason is added. */
const EXPLANATIONS: Record<string, { status: number, text: string }> = {
  HPE_UNEXPECTED_CONTENT_LENGTH: { status: 400, text: 'its Content-Length is given more than once or where none is allowed, so its body\'s length is ambiguous' },
  HPE_INVALID_CONTENT_LENGTH: { status: 400, text: 'its Content-Length is not a decimal number of bytes' },
  HPE_INVALID_TRANSFER_ENCODING: { status: 400, text: 'it has Transfer-Encoding with Content-Length, or a Transfer-Encoding that does not end with chunked, so its body\'s length is ambiguous' },
  HPE_INVALID_HEADER_TOKEN: { status: 400, text: 'a header line is malformed (a folded continuation line, a name with a space or without a colon, a control character)' },
  HPE_INVALID_CHUNK_SIZE: { status: 400, text: 'a chunk size of its chunked body is not a hexadecimal number' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, text: 'the extensions of a chunk of its chunked body are too large' },
  HPE_INVALID_VERSION: { status: 400, text: 'its HTTP version is not HTTP/1.0 or HTTP/1.1' },
  HPE_INVALID_METHOD: { status: 400, text: 'it does not start with a known HTTP method' },
  HPE_INVALID_URL: { status: 400, text: 'its request target is not a valid URL' },
  HPE_HEADER_OVERFLOW: { status: 431, text: `its request line and headers are larger than the server's limit of ${HEADER_LIMIT_KIB} KiB` }
}

/** The parser's reason as an error of its own: the cause the exception panel shows. */
function parserCause (error: ClientError): Error {
  const cause = new Error(error.reason ?? error.message)
  cause.name = error.code ?? error.name
  return cause
}

/** The answer to a request that Node's HTTP server rejected before Fastify saw it (or while it read the body). */
export function rejectionError (error: ClientError): HttpError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new HttpError(408, 'The request was not received in time (REQUEST_TIMEOUT / HEADERS_TIMEOUT): the connection is closed.', { name: 'RequestTimeoutError', cause: parserCause(error) })
  }
  const explanation = EXPLANATIONS[error.code ?? '']
  const reason = error.reason ?? error.message
  const text = explanation?.text ?? 'it is not a valid HTTP/1.1 request'
  return new HttpError(explanation?.status ?? 400, `The HTTP parser rejected the request: ${text} ("${reason}").`, { name: 'BadRequestError', cause: parserCause(error) })
}

/** CONNECT asks for a tunnel: this service is no proxy. */
export function connectError (target: string): HttpError {
  const quoted = target.length > MAX_QUOTED ? `${target.slice(0, MAX_QUOTED)}…` : target
  return new HttpError(400, `CONNECT "${quoted}" is not supported: this service is not a proxy and answers only requests for its own paths.`, { name: 'BadRequestError' })
}
