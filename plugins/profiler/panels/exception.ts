import { STATUS_CODES } from 'node:http'
import type { ExceptionData, ExceptionSchema } from './exception-schema.js'
import type { CollectContext, Panel } from './panel.js'

type StoredException = Omit<NonNullable<ExceptionData>, 'statusCode' | 'statusText'> | null

/** The error as stored, redacted: without its status (the row holds it). */
function recordException ({ capture, redactor }: CollectContext): StoredException {
  const error = capture.error
  if (error === null) return null
  return {
    name: error.name,
    message: redactor.text(error.message),
    chain: error.chain.map(entry => {
      const redacted: { name: string, message: string, stack?: string } = { name: entry.name, message: redactor.text(entry.message) }
      if (entry.stack !== undefined) redacted.stack = redactor.text(entry.stack)
      return redacted
    })
  }
}

/** Exception: the rendered error, its HTTP status, and the whole cause chain (stacks for 5xx outside production). */
export const exceptionPanel: Panel<typeof ExceptionSchema, StoredException> = {
  name: 'exception',
  label: 'Exception',
  description: 'error, message, cause chain',
  collect (context) {
    const stored = recordException(context)
    if (stored === null) return null
    const { name, ...rest } = stored
    const statusCode = context.capture.statusCode
    return { name, statusCode, statusText: STATUS_CODES[statusCode] ?? '', ...rest }
  },
  // Stored without the status: the row holds it.
  record: recordException,
  fromStored (stored, row) {
    if (stored === null) return null
    const { name, ...rest } = stored
    return { name, statusCode: row.status, statusText: STATUS_CODES[row.status] ?? '', ...rest }
  }
}
