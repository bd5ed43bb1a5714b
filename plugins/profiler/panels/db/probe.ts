// The db panel on the request thread: a statement log for each request on a profiled route, which
// the advisors' repositories record into (request.databaseStatements, plugins/advisors/), taken
// as it is once the request is over (flat: the writer rebuilds a statement object each, in
// unpack-statements.ts); and the header's `db` entry.
import type { FastifyRequest } from 'fastify'
import { STATEMENT_SLOTS, StatementLog, type CapturedStatements, type ClonedStatementLog } from '../../../../lib/statement-log.js'
import type { PanelProbe } from '../probe.js'

/** A request's statements: its log, as the request thread keeps it and as it crosses; rebuilt as CapturedStatements for the panel. */
export type TakenStatements = StatementLog | ClonedStatementLog | CapturedStatements

/** A statement's estimated bytes beside its SQL (its parameters and numbers). */
const STATEMENT_BYTES = 64

function serverTiming (request: FastifyRequest): string {
  const log = request.databaseStatements
  const count = log?.count ?? 0
  return `db;dur=${(log?.totalMs ?? 0).toFixed(3)};desc="${count} ${count === 1 ? 'query' : 'queries'}"`
}

export const dbProbe: PanelProbe<TakenStatements> = {
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
    if ('kept' in taken) {
      for (let at = 0; at < taken.kept.length; at += STATEMENT_SLOTS) bytes += STATEMENT_BYTES + paramsChars(taken.kept[at + 1])
    } else {
      for (const statement of taken.statements) bytes += STATEMENT_BYTES + paramsChars(statement.params)
    }
    return bytes
  }
}

/** The characters of a statement's string parameters, positional (an array) or named (an object), read in place. */
function paramsChars (params: unknown): number {
  let chars = 0
  if (Array.isArray(params)) {
    for (let j = 0; j < params.length; j++) {
      const value: unknown = params[j]
      if (typeof value === 'string') chars += value.length
    }
  } else if (typeof params === 'object' && params !== null) {
    const record = params as Record<string, unknown>
    for (const key in record) {
      const value = record[key]
      if (Object.hasOwn(record, key) && typeof value === 'string') chars += value.length
    }
  }
  return chars
}
