// run-suite: shares a process
// Every count declared in row-counts.ts reaches everything derived from it: the listing's JSON
// schema, the columns both engines select, the mapping of a read row to the listing's keys, the
// values the writers insert, and a migration on each engine that adds its column. A count added to
// ROW_COUNTS is checked here without another edit.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../paths.js'
import { noRowCounts, ROW_COUNT_COLUMNS, ROW_COUNTS, rowCountValues, type RowCountField } from '../../plugins/profiler/row-counts.js'
import { ListingResponseSchema } from '../../plugins/profiler/schemas.js'
import { SUMMARY_COLUMNS, toSummary, type SummaryRow } from '../../plugins/profiler/engine/profile-rows.js'

const fields = Object.keys(ROW_COUNTS) as RowCountField[]

function migrationsOf (engine: 'sqlite' | 'postgres'): string {
  const dir = join(packageRoot, 'migrations', 'profiler', engine)
  return readdirSync(dir).filter(file => file.endsWith('.sql')).map(file => readFileSync(join(dir, file), 'utf8')).join('\n')
}

t.test('each count reaches the listing, both engines\' columns and their migrations', async t => {
  const summary = ListingResponseSchema.properties.results.items.properties as Record<string, unknown>
  const migrations = { sqlite: migrationsOf('sqlite'), postgres: migrationsOf('postgres') }
  for (const field of fields) {
    const { column, summary: key } = ROW_COUNTS[field]
    t.ok(key in summary, `${field}: the listing's JSON has ${key}`)
    t.ok(SUMMARY_COLUMNS.split(', ').includes(`p.${column}`), `${field}: the listing selects p.${column}`)
    for (const [engine, text] of Object.entries(migrations)) {
      t.match(text, new RegExp(`\\b${column}\\b\\s+(INTEGER|integer|REAL|real|float8|double precision|bigint)`, 'i'), `${field}: a ${engine} migration adds ${column}`)
    }
  }
  t.same(ROW_COUNT_COLUMNS, fields.map(field => ROW_COUNTS[field].column), 'the writers insert every column, in declaration order')
})

t.test('a row read and a record written carry each count to its place', async t => {
  const row = { id: 1024, token: 'abc123', ip: '::1', method: 'GET', url: 'http://x/', status: 200, duration_ms: 1, deployment: 'A', trace_id: null } as Partial<SummaryRow>
  fields.forEach((field, index) => { (row as Record<string, unknown>)[ROW_COUNTS[field].column] = index + 10 })
  const listed = toSummary(row as SummaryRow) as unknown as Record<string, unknown>
  for (const [index, field] of fields.entries()) {
    t.equal(listed[ROW_COUNTS[field].summary], index + 10, `${field}: read from ${ROW_COUNTS[field].column} into ${ROW_COUNTS[field].summary}`)
    t.equal(rowCountValues({ [field]: 7 })[index], 7, `${field}: written at its column's place`)
  }
  t.same(rowCountValues({}), fields.map(() => 0), 'a record without counts writes zeros')
  t.same(Object.values(noRowCounts()), fields.map(() => 0), 'every count starts at zero')
})
