import type { Panel } from '../panel.js'
import { collectDb } from './collect.js'
import { explainPage } from './explain.js'
import { dbProbe, type TakenStatements } from './probe.js'
import { DbSchema, type StoredDb } from './schema.js'
import { dbView } from './view.js'
import { roundMs } from '../../units.js'

/** Database: every statement the request ran on the advisors' database, grouped, timed, runnable, explained. */
export const dbPanel: Panel<typeof DbSchema, StoredDb, TakenStatements> = {
  name: 'db',
  label: 'Database',
  description: "statements run on the advisors' database: SQL, redacted parameters, kind, time (ms), rows, error; query count and time",
  schema: DbSchema,
  probe: dbProbe,
  collect: collectDb,
  rowCounts (taken) {
    return { queryCount: taken?.count ?? 0, queryMs: roundMs(taken?.totalMs ?? 0) }
  },
  // The row holds the query count and time.
  toStored ({ queryCount: _queryCount, queryMs: _queryMs, ...kept }) {
    return kept
  },
  fromStored (stored, row) {
    return { queryCount: row.queries, queryMs: row.queryMs, ...stored }
  },
  view: dbView,
  // The plan of one SELECT, on demand (explain.ts).
  pages: [explainPage]
}
