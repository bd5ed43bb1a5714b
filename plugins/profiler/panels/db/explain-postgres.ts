// EXPLAIN (never ANALYZE: the statement is planned, not run) of one statement on the advisors'
// PostgreSQL database, its parameters bound, inside BEGIN READ ONLY ... ROLLBACK with a statement
// timeout. PostgreSQL 15 has no EXPLAIN (GENERIC_PLAN): the plan is the one made for these values.
import type pg from 'pg'
import { HttpError } from '../../../../lib/http-error.js'
import { isPostgresFault } from '../../../../lib/postgres/faults.js'
import { databaseUnavailable } from '../../../../lib/sqlite/faults.js'
import type { DbStatement } from './schema.js'
import { cannotExplain } from './explain-refusal.js'

/** Planning one statement takes milliseconds: longer is a lock or a server in trouble. */
const EXPLAIN_TIMEOUT_MS = 2000
/** query_canceled: the statement timeout above. */
const CANCELED = '57014'

export async function explainOnPostgres (pool: () => Promise<pg.Pool>, statement: DbStatement): Promise<string[]> {
  const { params } = statement
  if (!Array.isArray(params)) throw cannotExplain('node-postgres binds positional parameters only, and this statement has named ones')
  let client: pg.PoolClient
  try {
    // pool() is the 503 itself while the database cannot be opened.
    client = await (await pool()).connect()
  } catch (err) {
    throw err instanceof HttpError ? err : databaseUnavailable(err)
  }
  const ignore = (): void => {}
  client.on('error', ignore)
  let broken: Error | undefined
  try {
    await client.query('BEGIN READ ONLY')
    await client.query(`SET LOCAL statement_timeout = ${EXPLAIN_TIMEOUT_MS}`)
    // The extended protocol, even without parameters: the server then takes exactly one statement,
    // so nothing after a `;` could end the read-only transaction.
    const query = { text: `EXPLAIN ${statement.sql}`, values: params, queryMode: 'extended' } as pg.QueryConfig
    const result = await client.query<{ 'QUERY PLAN': string }>(query)
    return result.rows.map(row => row['QUERY PLAN'])
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (code === CANCELED) throw new HttpError(503, `PostgreSQL took longer than ${EXPLAIN_TIMEOUT_MS / 1000} s to plan it (a lock?): try again later`, { cause: err, name: 'ServiceUnavailableError' })
    if (isPostgresFault(err)) throw databaseUnavailable(err)
    // An unknown table or column (a migration since), a value of the wrong type: what PostgreSQL said.
    throw cannotExplain(`PostgreSQL could not plan it: ${(err as Error).message}`)
  } finally {
    await client.query('ROLLBACK').catch((rollbackError: Error) => { broken = rollbackError })
    client.off('error', ignore)
    // A connection that could not even roll back is discarded.
    client.release(broken)
  }
}
