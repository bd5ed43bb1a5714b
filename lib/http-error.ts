/** An error with an HTTP status (and optional headers) that the error renderer shows as is. */
export class HttpError extends Error {
  readonly statusCode: number
  readonly headers: Record<string, string>

  constructor (statusCode: number, message: string, options: { cause?: unknown, headers?: Record<string, string>, name?: string } = {}) {
    // A client error is an expected outcome, not a bug: no stack trace (capturing one is most of
    // the cost of answering a 404). Server errors keep theirs.
    const stackTraceLimit = Error.stackTraceLimit
    if (statusCode < 500) Error.stackTraceLimit = 0
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    Error.stackTraceLimit = stackTraceLimit
    this.name = options.name ?? 'HttpError'
    this.statusCode = statusCode
    this.headers = options.headers ?? {}
  }
}
