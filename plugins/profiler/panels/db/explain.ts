// The db panel's Explain page (/_profiler/<token>/db/explain?statement=N): the plan of one SELECT
// the profile recorded, made on demand on this service's advisors' database. Only a SELECT, only
// with its parameters as they ran: a statement whose SQL or parameters were redacted is refused
// (a plan made with a stand-in value, NULL say, can differ from the one that ran: PostgreSQL folds
// `code = NULL` into no scan at all).
import { HttpError } from '../../../../lib/http-error.js'
import type { AppDatabase, PanelPage, PageQuery } from '../panel.js'
import { cannotExplain } from './explain-refusal.js'
import type { DbData, DbSchema, DbStatement } from './schema.js'

const ENGINE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const

/** `?statement=N`: the statement's number on the page (its `#`), from 1. */
function statementNumber (query: PageQuery): number {
  const raw = query.statement
  if (typeof raw !== 'string' || !/^[1-9]\d{0,8}$/.test(raw)) {
    throw new HttpError(400, 'The "statement" parameter must be one statement\'s number on the page: 1, 2, ...', { name: 'BadRequestError' })
  }
  return Number(raw)
}

/** "an UPDATE", "a DELETE". */
function kindText (kind: string): string {
  if (kind === '') return 'of no known kind'
  return `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}`
}

/** The statement asked for, if it is one this page plans; an HttpError saying why not otherwise. */
function explainable (data: DbData | undefined, query: PageQuery, database: AppDatabase | null): { number: number, statement: DbStatement, database: AppDatabase } {
  const number = statementNumber(query)
  const statement = data?.statements[number - 1]
  if (data === undefined || statement === undefined) {
    const kept = data?.statements.length ?? 0
    throw new HttpError(404, `Statement ${number} not found: this profile kept ${kept} statement${kept === 1 ? '' : 's'}.`, { name: 'NotFoundHttpError' })
  }
  if (statement.kind !== 'SELECT') throw cannotExplain(`only a SELECT is explained, and statement ${number} is ${kindText(statement.kind)}`)
  if (statement.redacted) throw cannotExplain('its SQL or a parameter was redacted, and a plan made with a stand-in value could differ from the one that ran (the runnable query is withheld for the same reason)')
  if (database === null) throw cannotExplain('this service has no advisors\' database to plan it on')
  if (data.engine !== database.engine) {
    throw cannotExplain(`it ran on ${data.engine === null ? 'an unknown engine' : ENGINE_NAMES[data.engine]}, and this service's advisors' database is on ${ENGINE_NAMES[database.engine]}`)
  }
  return { number, statement, database }
}

export const explainPage: PanelPage<typeof DbSchema> = {
  path: 'explain',
  title: 'Explain',
  async answer (data, { query, appDatabase }) {
    const { number, statement, database } = explainable(data, query, appDatabase)
    // Loaded on the first Explain: every thread that reads the panels (the writer's among them) would load them otherwise.
    const plan = database.engine === 'sqlite'
      ? (await import('./explain-sqlite.js')).explainOnSqlite(database.path, statement)
      : await (await import('./explain-postgres.js')).explainOnPostgres(database.pool, statement)
    return {
      statement: number,
      sql: statement.sql,
      params: statement.params,
      engine: database.engine,
      database: database.where,
      command: database.engine === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN',
      plan
    }
  }
}
