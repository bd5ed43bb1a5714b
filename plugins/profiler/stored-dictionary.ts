// What every stored profile would otherwise spell out (stored-codec.ts): the panels' object shapes
// as toStored leaves them (key lists, in their order) and strings most profiles hold. A record
// refers to an entry by its place, so both lists ONLY GROW, AT THEIR END: an entry changed or
// removed would change what every record stored before reads as. A shape or string missing here
// is still stored exactly, only spelled out once in its record.

/** Object shapes, as Object.keys gives them. */
export const STATIC_SHAPES: ReadonlyArray<readonly string[]> = [
  // The profile's own panels (the per-process ones are stored apart).
  ['request', 'performance', 'exception', 'router', 'db', 'logs', 'timeline'],
  // request (without method, URL, route: the row holds them), its response (without the status).
  ['params', 'query', 'body', 'requestHeaders', 'response'],
  ['params', 'query', 'body', 'rawBody', 'requestHeaders', 'response'],
  ['headers', 'body'],
  ['text', 'bytes', 'truncated', 'reason'],
  ['text', 'bytes', 'truncated', 'reason', 'lossy'],
  // performance (without the total), exception (without the status), router (without the route).
  ['beforeHandlerMs', 'handlerMs', 'sendingMs', 'heapUsedBytes', 'droppedProfiles'],
  ['name', 'message', 'chain'],
  ['name', 'message'],
  ['name', 'message', 'stack'],
  ['matched', 'failure'],
  ['method'],
  ['outcome', 'method', 'path', 'twinPath', 'allowedMethods'],
  // db (without the count and time), a statement.
  ['engine', 'statements'],
  ['sql', 'kind', 'params', 'redacted', 'startMs', 'durationMs', 'rows', 'error'],
  // logs, a line, Fastify's own lines' fields.
  ['lines', 'omitted', 'sampledOut'],
  ['offsetMs', 'level', 'message', 'fields'],
  ['req'],
  ['method', 'url'],
  ['responseTime', 'res'],
  ['statusCode'],
  // timeline (without the total): a phase, a log tick, what was omitted.
  ['phases', 'items', 'logs', 'hooksTimed', 'omitted'],
  ['name', 'startMs', 'durationMs'],
  ['offsetMs', 'level', 'message'],
  ['hooks', 'statements', 'logs'],
  // A JSON error answer of the service (plugins/error-renderer.ts).
  ['statusCode', 'error', 'message']
]

/** Strings: values the panels hold for most requests, header names and common values. */
export const STATIC_STRINGS: readonly string[] = [
  // Timeline items and phases.
  'hook', 'handler', 'statement', 'before', 'sending', 'route',
  'onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort',
  // Log levels and Fastify's own lines.
  'trace', 'debug', 'info', 'warn', 'error', 'fatal', 'incoming request', 'request completed',
  // Statements.
  'sqlite', 'postgres', 'SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'PRAGMA', 'BEGIN', 'COMMIT', 'ROLLBACK',
  // Methods and routing outcomes.
  'GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'not-found', 'method-not-allowed', 'redirect',
  // Errors.
  'Error', 'TypeError', 'RangeError', 'SyntaxError', 'NotFoundHttpError', 'ResourceNotFoundError', 'Not Found', 'Bad Request', 'Internal Server Error', 'Service Unavailable',
  // Header names.
  'host', 'user-agent', 'accept', 'accept-encoding', 'accept-language', 'content-type', 'content-length', 'connection', 'date',
  'vary', 'etag', 'cache-control', 'location', 'origin', 'referer', 'x-request-id', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host',
  'content-encoding', 'transfer-encoding', 'keep-alive', 'x-debug-token', 'x-debug-token-link', 'server-timing', 'x-profiler-keep', 'authorization', 'cookie', 'set-cookie',
  // Header values.
  'application/json', 'application/json; charset=utf-8', 'text/html; charset=utf-8', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded',
  '*/*', 'gzip, deflate, br', 'gzip, deflate', 'gzip', 'close', 'chunked', 'no-store', 'Accept-Encoding'
  // Not '[redacted]': spelled out, a store's text shows where redaction took place (tests look for it).
]
