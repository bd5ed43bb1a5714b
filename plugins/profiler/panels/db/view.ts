// What the db panel's partial shows besides the data: the summary cards, each statement's times and
// slow mark, runnable query and Explain link, and the statements grouped as similar and duplicate.
import { formatMs } from '../../units.js'
import type { ViewSettings } from '../panel.js'
import { runnableQuery } from './runnable.js'
import type { DbData } from './schema.js'

interface Group { sql: string, params: string | null, count: number, totalMs: number }

/** Groups by key, in the order each key first ran; only groups of at least `minimum` statements. */
function grouped (data: DbData, keyOf: (index: number) => string, withParams: boolean, minimum: number) {
  const groups = new Map<string, Group>()
  data.statements.forEach((statement, index) => {
    const key = keyOf(index)
    const group = groups.get(key) ?? { sql: statement.sql, params: withParams ? JSON.stringify(statement.params) : null, count: 0, totalMs: 0 }
    group.count++
    group.totalMs += statement.durationMs
    groups.set(key, group)
  })
  return [...groups.values()]
    .filter(group => group.count >= minimum)
    .sort((a, b) => b.totalMs - a.totalMs)
    .map(group => ({ ...group, total: formatMs(group.totalMs) }))
}

export function dbView (data: DbData, settings: ViewSettings) {
  const similar = grouped(data, index => data.statements[index]?.sql ?? '', false, 1)
  // Same SQL and same parameters: the same answer asked for twice (the JSON of the redacted parameters is the key).
  const duplicates = grouped(data, index => JSON.stringify([data.statements[index]?.sql, data.statements[index]?.params]), true, 2)
  return {
    queryCount: data.queryCount,
    differentStatements: similar.length,
    queryTime: formatMs(data.queryMs),
    notKept: data.queryCount - data.statements.length,
    slowThreshold: formatMs(settings.slowQueryMs),
    statements: data.statements.map((statement, index) => ({
      ...statement,
      number: index + 1,
      start: formatMs(statement.startMs),
      duration: formatMs(statement.durationMs),
      slow: statement.durationMs > settings.slowQueryMs,
      paramsText: JSON.stringify(statement.params),
      hasParams: Array.isArray(statement.params) ? statement.params.length > 0 : Object.keys(statement.params).length > 0,
      runnable: statement.redacted ? null : runnableQuery(statement, data.engine),
      // The Explain page plans a SELECT with its parameters as they ran (explain.ts).
      explainable: statement.kind === 'SELECT' && !statement.redacted
    })),
    similar,
    duplicates
  }
}
