import { STATUS_CODES } from 'node:http'
import type { Collector } from './collector.js'

/** Exception: the rendered error, its HTTP status, and the whole cause chain (stacks for 5xx outside production). */
export const exceptionCollector: Collector = {
  name: 'exception',
  label: 'Exception',
  collect ({ capture, redactor }) {
    const error = capture.error
    if (error === null) return null
    const statusCode = capture.statusCode
    return {
      name: error.name,
      statusCode,
      statusText: STATUS_CODES[statusCode] ?? '',
      message: redactor.text(error.message),
      chain: error.chain.map(entry => {
        const redacted: { name: string, message: string, stack?: string } = { name: entry.name, message: redactor.text(entry.message) }
        if (entry.stack !== undefined) redacted.stack = redactor.text(entry.stack)
        return redacted
      })
    }
  }
}
