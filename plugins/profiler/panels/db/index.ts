import type { Panel } from '../panel.js'
import { collectDb, recordDb, statementOf, type DbRecord } from './collect.js'
import { explainPage } from './explain.js'
import { dbProbe, type TakenStatements } from './probe.js'
import type { DbSchema, StoredDb } from './schema.js'
import { dbView } from './view.js'
import { roundMs } from '../../units.js'

/** Database: every statement the request ran on the advisors' database, grouped, timed, runnable, explained. */
export const dbPanel: Panel<typeof DbSchema, StoredDb | DbRecord, TakenStatements> = {
  name: 'db',
  label: 'Database',
  description: "statements run on the advisors' database: SQL, redacted parameters, kind, time (ms), rows, error; query count and time",
  probe: dbProbe,
  collect: collectDb,
  rowCounts (taken) {
    return { queryCount: taken?.count ?? 0, queryMs: roundMs(taken?.totalMs ?? 0) }
  },
  // Stored as its engine and statements' values (collect.ts's DbRecord): the row holds the query count and time.
  record: recordDb,
  fromStored (stored, row) {
    if (!Array.isArray(stored)) return { queryCount: row.queries, queryMs: row.queryMs, ...stored }
    const [engine, statements] = stored
    // In the order the panel was read before (the row's values first): the JSON answers show it.
    return { queryCount: row.queries, queryMs: row.queryMs, engine, statements: statements.map(statementOf) }
  },
  view: dbView,
  // The plan of one SELECT, on demand (explain.ts).
  pages: [explainPage]
}
