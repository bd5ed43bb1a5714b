// The db panel on the request thread: a statement log for each request on a profiled route, which
// the advisors' repositories record into (request.databaseStatements, plugins/advisors/), taken
// as it is once the request is over; and the header's `db` entry.
import type { FastifyRequest } from 'fastify'
import { StatementLog, type CapturedStatements } from '../../../../lib/statement-log.js'
import type { PanelProbe } from '../probe.js'

/** A statement's estimated bytes beside its SQL (its parameters and numbers). */
const STATEMENT_BYTES = 64

function serverTiming (request: FastifyRequest): string {
  const log = request.databaseStatements
  const count = log?.count ?? 0
  return `db;dur=${(log?.totalMs ?? 0).toFixed(3)};desc="${count} ${count === 1 ? 'query' : 'queries'}"`
}

export const dbProbe: PanelProbe<CapturedStatements> = {
  beforeHandler (request) {
    request.databaseStatements = new StatementLog()
  },
  serverTiming,
  take (request) {
    return request.databaseStatements ?? undefined
  },
  // The SQL strings are the prepared statements' own (shared); bounded by the log's caps. A
  // parameter's text is copied with the batch: counted.
  bytes (taken) {
    let bytes = 0
    const { statements } = taken
    for (let i = 0; i < statements.length; i++) {
      bytes += STATEMENT_BYTES
      // Positional (an array) or named (an object), read in place: no array of the values.
      const params = statements[i]?.params
      if (Array.isArray(params)) {
        for (let j = 0; j < params.length; j++) {
          const value: unknown = params[j]
          if (typeof value === 'string') bytes += value.length
        }
      } else if (typeof params === 'object' && params !== null) {
        const record = params as Record<string, unknown>
        for (const key in record) {
          const value = record[key]
          if (Object.hasOwn(record, key) && typeof value === 'string') bytes += value.length
        }
      }
    }
    return bytes
  }
}
