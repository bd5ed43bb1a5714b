import { STATUS_CODES } from 'node:http'
import type { Redactor } from '../../../../lib/redact.js'
import type { Collector } from './collector.js'

interface ChainEntry { name: string, message: string, stack?: string }

/** The error and each of its causes, outermost first. */
function causeChain (error: Error, withStack: boolean, redactor: Redactor): ChainEntry[] {
  const chain: ChainEntry[] = []
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current instanceof Error && !seen.has(current) && chain.length < 20) {
    seen.add(current)
    const entry: ChainEntry = { name: current.name, message: redactor.text(current.message) }
    if (withStack && current.stack !== undefined) entry.stack = redactor.text(current.stack)
    chain.push(entry)
    current = current.cause
  }
  return chain
}

/** Exception: the rendered error, its HTTP status, and the whole cause chain (stacks for 5xx outside production). */
export const exceptionCollector: Collector = {
  name: 'exception',
  label: 'Exception',
  collect ({ request, reply, production, redactor }) {
    const error = request.renderedError
    if (error === null) return null
    const statusCode = reply.statusCode
    return {
      name: error.name,
      statusCode,
      statusText: STATUS_CODES[statusCode] ?? '',
      message: redactor.text(error.message),
      chain: causeChain(error, statusCode >= 500 && !production, redactor)
    }
  }
}
