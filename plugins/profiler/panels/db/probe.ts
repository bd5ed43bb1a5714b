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
    for (const { params } of taken.statements) {
      bytes += STATEMENT_BYTES
      // Positional (an array) or named (an object): Object.values reads both.
      for (const value of typeof params === 'object' && params !== null ? Object.values(params) : []) {
        if (typeof value === 'string') bytes += value.length
      }
    }
    return bytes
  }
}
