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

function shapeStatement (statement: CapturedStatement, originMs: number, redactor: Redactor): DbStatement {
  const sql = redactor.text(statement.sql)
  const { params, redacted } = shapeParams(statement.sql, statement.params, redactor)
  return {
    sql,
    kind: kindOf(sql),
    params,
    redacted: redacted || sql !== statement.sql,
    startMs: roundMs(statement.startMs - originMs),
    durationMs: roundMs(statement.durationMs),
    rows: statement.rows,
    error: statement.error === null ? null : redactor.text(statement.error)
  }
}

export function collectDb ({ capture, redactor }: CollectContext, captured: CapturedStatements | undefined): DbData {
  if (captured === undefined) return { engine: null, queryCount: 0, queryMs: 0, statements: [] }
  return {
    engine: captured.engine,
    queryCount: captured.count,
    queryMs: roundMs(captured.totalMs),
    statements: captured.statements.map(statement => shapeStatement(statement, capture.originMs, redactor))
  }
}
