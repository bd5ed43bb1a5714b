// run-suite: shares a process
// A request's statements cross to the writer flat (lib/statement-log.ts: the SQL, parameters and
// numbers in arrays, no object a statement) and the writer rebuilds a statement object each
// (panels/db/unpack-statements.ts). For generated requests (statements that succeed or fail with
// any message, positional or named parameters shared or not, past the caps on statements and on
// SQL text), what the writer rebuilds after the structured clone deep-equals what the clone of the
// statement objects gave it before (the reference log below is that code, on the same clock).
import { deepStrictEqual } from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import type { QueuedProfile, RequestCapture } from '../../plugins/profiler/capture/capture.js'
import { probedPanels } from '../../plugins/profiler/panels/probes.js'
import { dbPanel } from '../../plugins/profiler/panels/db/index.js'
import { unpackStatements } from '../../plugins/profiler/panels/db/unpack-statements.js'
import { MAX_SQL_CHARS, MAX_STATEMENTS, StatementLog, type CapturedStatement, type StatementEngine } from '../../lib/statement-log.js'
import { takenCaptures } from '../helpers/taken-capture.js'

const DB = probedPanels.findIndex(panel => panel === dbPanel)

/** The log as it was before: a statement object each, in one array. */
class ReferenceLog {
  engine: StatementEngine | null = null
  readonly statements: CapturedStatement[] = []
  count = 0
  totalMs = 0
  private sqlChars = 0

  add (engine: StatementEngine, sql: string, params: unknown, startMs: number, error: unknown, rows: number | null): void {
    const durationMs = performance.now() - startMs
    Object.assign(this, { engine, count: this.count + 1, totalMs: this.totalMs + durationMs })
    const full = this.statements.length >= MAX_STATEMENTS || this.sqlChars + sql.length > MAX_SQL_CHARS
    if (full) return
    this.sqlChars += sql.length
    this.statements.push({ sql, params, startMs, durationMs, rows, error: error === null ? null : error instanceof Error ? error.message : String(error) })
  }
}

const value = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double(), fc.constant(null), fc.boolean())
const params = fc.oneof(
  fc.array(value, { maxLength: 4 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), value, { maxKeys: 3 }),
  fc.constant(undefined)
)
const failure = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 20 }).map(message => new Error(message)),
  fc.string({ maxLength: 20 }),
  fc.constant(undefined),
  fc.integer()
)
const statement = fc.record({
  sql: fc.oneof({ weight: 9, arbitrary: fc.string({ maxLength: 40 }) }, { weight: 1, arbitrary: fc.nat(30_000).map(n => 'S'.repeat(n)) }),
  params,
  // Given again as the next statement's parameters (one array shared by two statements).
  sameParams: fc.boolean(),
  startMs: fc.double({ min: 0, max: 1e7, noNaN: true }),
  durationMs: fc.double({ min: 0, max: 500, noNaN: true }),
  rows: fc.nat(10_000),
  failure,
  engine: fc.constantFrom<StatementEngine>('sqlite', 'postgres')
})
const request = fc.oneof(
  { weight: 4, arbitrary: fc.array(statement, { maxLength: 12 }) },
  { weight: 1, arbitrary: fc.array(statement, { minLength: MAX_STATEMENTS - 2, maxLength: MAX_STATEMENTS + 30 }) }
)

/** Both logs record the same statements, the clock reading each one's end for both. */
function record (statements: Array<typeof statement extends fc.Arbitrary<infer S> ? S : never>, log: StatementLog, reference: ReferenceLog): void {
  let now = 0
  Object.defineProperty(performance, 'now', { configurable: true, value: () => now })
  try {
    let previous: unknown
    for (const s of statements) {
      const given = s.sameParams && previous !== undefined ? previous : s.params
      previous = given
      now = s.startMs + s.durationMs
      const rows = s.failure === null ? s.rows : null
      log.add(s.engine, s.sql, given, s.startMs, s.failure, rows)
      reference.add(s.engine, s.sql, given, s.startMs, s.failure, rows)
    }
  } finally {
    delete (performance as { now?: unknown }).now
  }
}

const capture = takenCaptures(dbPanel)

t.test('what the writer rebuilds from a flat statement log deep-equals the clone of the statement objects', async t => {
  let checked = 0
  fc.assert(fc.property(fc.array(request, { minLength: 1, maxLength: 4 }), requests => {
    const logs = requests.map(() => new StatementLog())
    const references = requests.map(() => new ReferenceLog())
    requests.forEach((statements, i) => { record(statements, logs[i] as StatementLog, references[i] as ReferenceLog) })
    // A route the profiler does not log statements for crosses nothing; a request the HTTP parser rejected has no `taken`.
    const batch: QueuedProfile[] = [...logs.map((log, i) => capture(`t${i}`, log)), capture('none', undefined), { kind: 'capture', token: 'rejected' } as unknown as RequestCapture]
    // What postMessage does with the batch, then the writer's rebuilding.
    const message = structuredClone({ batch })
    unpackStatements(message.batch)
    const before = structuredClone({ batch: [...references.map((reference, i) => capture(`t${i}`, reference)), capture('none', undefined), { kind: 'capture', token: 'rejected' }] })
    deepStrictEqual(message.batch, before.batch)
    checked += requests.length
  }), { numRuns: 150 })
  t.ok(checked > 150, `${checked} generated requests`)
})

t.test('a failed statement and a successful one, as the panel reads them', async t => {
  const log = new StatementLog()
  log.add('sqlite', 'SELECT 1', [], performance.now(), new Error('no such table: x'), null)
  log.add('sqlite', 'SELECT 2', { a: 1 }, performance.now(), null, 3)
  const { batch } = structuredClone({ batch: [capture('one', log)] })
  unpackStatements(batch)
  const { statements, count } = batch[0]?.taken?.[DB] as { statements: CapturedStatement[], count: number }
  t.equal(count, 2)
  t.match(statements, [{ sql: 'SELECT 1', params: [], rows: null, error: 'no such table: x' }, { sql: 'SELECT 2', params: { a: 1 }, rows: 3, error: null }])
})
