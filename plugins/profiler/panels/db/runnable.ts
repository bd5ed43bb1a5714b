// A statement with its parameters written in, as the engine reads literals: to paste into sqlite3
// or psql. Only for statements none of whose parameters was redacted (the caller checks).
import type { DbData, DbStatement, Param } from './schema.js'

function literal (value: Param, engine: 'sqlite' | 'postgres'): string {
  if (value === null) return 'NULL'
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `'${String(value)}'`
  if (typeof value === 'boolean') return engine === 'postgres' ? (value ? 'TRUE' : 'FALSE') : (value ? '1' : '0')
  // Standard strings on both engines: a quote is doubled, nothing else is special.
  return `'${value.replace(/'/g, "''")}'`
}

/** The SQL with each placeholder (`?`, `?NNN`, `$N`, `@name`, `:name`, `$name`) replaced by its value's literal. */
export function runnableQuery (statement: DbStatement, engine: DbData['engine']): string {
  const { sql, params } = statement
  const dialect = engine ?? 'sqlite'
  if (Array.isArray(params)) {
    let ordinal = 0
    return sql.replace(/\?(\d*)|\$(\d+)/g, (match, numbered: string, dollar: string | undefined) => {
      ordinal++
      const index = Number(dollar ?? (numbered === '' ? ordinal : numbered)) - 1
      return index < params.length ? literal(params[index] ?? null, dialect) : match
    })
  }
  return sql.replace(/[@:$]([A-Za-z_]\w*)/g, (match, name: string) => name in params ? literal(params[name] ?? null, dialect) : match)
}
