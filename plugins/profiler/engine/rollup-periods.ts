// The rollup rows of one span, per line and period, as SQL written once for both engines: each
// engine gives its placeholders, how a sum stays a number, and how it joins the rows' histograms.
import type { RollupRange } from '../stats/trend.js'
import { SqlParameters, type SqlDialect } from '../sql-dialect.js'

/** What differs between the engines' SQL for the rollups. */
export interface RollupDialect extends SqlDialect {
  /** A sum of an integer column, as a number (PostgreSQL's sum of bigint is numeric). */
  sum: (column: string) => string
  /** The rows' histograms joined into one value (SQLite: as hex, group_concat joins text). */
  histograms: string
}

/**
 * A range's rows added up per line and period (over the deployments, unless one is named):
 * method, route, status, start_ms, count, max_ms, histograms (see PeriodRow). A primary-key range
 * of the span; the profiles are never read.
 */
export function rollupPeriodsQuery (range: RollupRange, dialect: RollupDialect): { sql: string, values: unknown[] } {
  const params = new SqlParameters(dialect)
  const where = [`span_ms = ${params.add(range.spanMs)}`, `start_ms >= ${params.add(range.fromMs)}`, `start_ms < ${params.add(range.toMs)}`]
  if (range.deployment !== undefined) where.push(`deployment = ${params.add(range.deployment)}`)
  if (range.line !== undefined) {
    where.push(`method = ${params.add(range.line.method)}`, `route = ${params.add(range.line.route)}`, `status = ${params.add(range.line.status)}`)
  }
  const sql = `SELECT method, route, status, start_ms, ${dialect.sum('count')}, max(max_ms), ${dialect.histograms}
    FROM profile_route_stats WHERE ${where.join(' AND ')} GROUP BY method, route, status, start_ms`
  return { sql, values: params.values }
}
