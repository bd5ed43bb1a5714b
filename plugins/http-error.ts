/** An error with an HTTP status (and optional headers) that the error renderer shows as is. */
export class HttpError extends Error {
  readonly statusCode: number
  readonly headers: Record<string, string>

  constructor (statusCode: number, message: string, options: { cause?: unknown, headers?: Record<string, string>, name?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = options.name ?? 'HttpError'
    this.statusCode = statusCode
    this.headers = options.headers ?? {}
  }
}
