// Runs in the writer thread: the request's captured statements, redacted and rounded.
import { BoundedMemo } from '../../../../lib/bounded-memo.js'
import { REDACTED, type Redactor } from '../../../../lib/redact.js'
import type { CapturedStatement, CapturedStatements } from '../../../../lib/statement-log.js'
import type { CollectContext } from '../panel.js'
import type { DbData, DbStatement, Param } from './schema.js'
import { roundMs } from '../../units.js'
import { isSpace } from '../whitespace.js'

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

/** The statement's first word (ASCII letters after any whitespace): SELECT, INSERT, UPDATE, WITH, PRAGMA... */
function kindOf (sql: string): string {
  let start = 0
  while (start < sql.length && isSpace(sql.charCodeAt(start))) start++
  let end = start
  while (end < sql.length && isLetter(sql.charCodeAt(end))) end++
  return sql.slice(start, end).toUpperCase()
}

/**
 * placeholderNames of the SQL texts seen lately (a statement's text comes back request after
 * request), bounded whatever the texts: lib/bounded-memo.ts.
 */
const placeholderMemo = new BoundedMemo<ReadonlyMap<number, string>>({ entries: 2000, chars: 512 * 1024, maxKeyChars: 4096 }, names => names.size * 16)

/**
 * The column each positional placeholder is compared with or assigned to (`code = ?`,
 * `last_seen_at = $1`), by position: a parameter named like a secret (`password = ?`) is redacted
 * as a field of that name would be. Placeholders without such a column have no name.
 */
function placeholderNames (sql: string): ReadonlyMap<number, string> {
  const names = new Map<number, string>()
  let ordinal = 0
  for (const match of sql.matchAll(/(?:([A-Za-z_][\w]*)["`\]]?\s*(?:=|<>|!=|<=|>=|<|>)\s*)?(?:\?(\d*)|\$(\d+))/g)) {
    ordinal++
    const position = match[3] ?? (match[2] === '' || match[2] === undefined ? String(ordinal) : match[2])
    if (match[1] !== undefined) names.set(Number(position) - 1, match[1])
  }
  return names
}

const NO_NAMES: ReadonlyMap<number, string> = new Map()

/** A parameter as the page shows it: plain values kept, anything else described (and never runnable). */
function plain (value: unknown): { value: Param, plain: boolean } {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return { value, plain: true }
  if (typeof value === 'bigint') return { value: value.toString(), plain: false }
  if (value instanceof Uint8Array) return { value: `[${value.byteLength} bytes]`, plain: false }
  if (value instanceof Date) return { value: value.toISOString(), plain: false }
  return { value: `[${typeof value}]`, plain: false }
}

function shapeParams (sql: string, params: unknown, redactor: Redactor): { params: DbStatement['params'], redacted: boolean } {
  let redacted = false
  const one = (value: unknown, name: string | undefined): Param => {
    const kept = plain(value)
    if (!kept.plain) redacted = true
    if (name !== undefined && redactor.isSecretName(name)) {
      redacted = true
      return REDACTED
    }
    const safe = redactor.fields(kept.value) as Param
    if (safe !== kept.value) redacted = true
    return safe
  }
  if (Array.isArray(params)) {
    const names = params.length === 0 ? NO_NAMES : placeholderMemo.get(sql, placeholderNames)
    return { params: params.map((value, index) => one(value, names.get(index))), redacted }
  }
  if (params !== null && typeof params === 'object') {
    const named: Record<string, Param> = {}
    for (const [name, value] of Object.entries(params)) named[redactor.text(name)] = one(value, name)
    return { params: named, redacted }
  }
  return { params: [], redacted }
}

/** A statement as stored from 29 November 2026: its values in the schema's order, but its kind (its SQL's first word, put back when read). */
export type StatementRecord = [sql: string, params: DbStatement['params'], redacted: 0 | 1, startMs: number, durationMs: number, rows: number | null, error: string | null]

/** What the store keeps of the panel (the row holds the query count and time): its engine and statements, each as its values. */
export type DbRecord = [engine: DbData['engine'], statements: StatementRecord[]]

function statementRecord (statement: CapturedStatement, originMs: number, redactor: Redactor): StatementRecord {
  const sql = redactor.text(statement.sql)
  const { params, redacted } = shapeParams(statement.sql, statement.params, redactor)
  return [
    sql,
    params,
    redacted || sql !== statement.sql ? 1 : 0,
    roundMs(statement.startMs - originMs),
    roundMs(statement.durationMs),
    statement.rows,
    statement.error === null ? null : redactor.text(statement.error)
  ]
}

/** A stored statement as the panel shows it. */
export function statementOf ([sql, params, redacted, startMs, durationMs, rows, error]: StatementRecord): DbStatement {
  return { sql, kind: kindOf(sql), params, redacted: redacted === 1, startMs, durationMs, rows, error }
}

export function recordDb ({ capture, redactor }: CollectContext, captured: CapturedStatements | undefined): DbRecord {
  if (captured === undefined) return [null, []]
  return [captured.engine, captured.statements.map(statement => statementRecord(statement, capture.originMs, redactor))]
}

export function collectDb (context: CollectContext, captured: CapturedStatements | undefined): DbData {
  const [engine, statements] = recordDb(context, captured)
  return { engine, queryCount: captured?.count ?? 0, queryMs: roundMs(captured?.totalMs ?? 0), statements: statements.map(statementOf) }
}
