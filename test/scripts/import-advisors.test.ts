// run-suite: shares a process
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { importAdvisors } from '../../scripts/advisor-import.js'
import { runInProcess, runNode } from '../helpers/run.js'

/** The import run in-process; a few runs below go through the built bin (a real node start). */
const importFile = async (args: string[], env: Record<string, string>) => await runInProcess(importAdvisors, args, env)
const BIN = 'scripts/import-advisors.js'

const HEADER = 'code,first_name,last_name,email,team,phone_extension,status,last_seen_at'

function advisorCodes (dbPath: string): string[] {
  const db = new BetterSqlite3(dbPath, { readonly: true })
  try {
    return (db.prepare('SELECT code FROM advisors ORDER BY code').all() as Array<{ code: string }>).map(r => r.code)
  } finally {
    db.close()
  }
}

t.test('a valid CSV file is upserted in one go and counted', async t => {
  const dir = t.testdir({
    'advisors.csv': `${HEADER}\nC1,Ann,Lee,ann@example.test,Sales,12,busy,\n"C2","Bob","O""Neil",bob@example.test,Billing,,away,2026-01-02T03:04:05Z\n`,
    'update.csv': `${HEADER}\nC1,Ann,Lee-Smith,ann@example.test,Sales,12,available,\n`
  })
  const env = { DATABASE_PATH: join(dir, 'var', 'app.sqlite') }
  const first = await runNode(BIN, [join(dir, 'advisors.csv')], env)
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, /^Imported 2 advisors into /)
  t.same(advisorCodes(env.DATABASE_PATH), ['C1', 'C2'])
  const second = await importFile([join(dir, 'update.csv')], env)
  t.equal(second.code, 0)
  const db = new BetterSqlite3(env.DATABASE_PATH, { readonly: true })
  t.teardown(() => db.close())
  t.same(db.prepare("SELECT last_name, status FROM advisors WHERE code = 'C1'").get(), { last_name: 'Lee-Smith', status: 'available' })
  t.same(db.prepare("SELECT last_name, last_seen_at FROM advisors WHERE code = 'C2'").get(), { last_name: 'O"Neil', last_seen_at: '2026-01-02T03:04:05.000Z' })
})

t.test('a JSON file with camelCase keys imports too', async t => {
  const dir = t.testdir({
    'advisors.json': JSON.stringify([
      { code: 'J1', firstName: 'Jo', lastName: 'Ng', email: 'jo@example.test', team: 'Sales' },
      { code: 'J2', firstName: 'Al', lastName: 'Ng', email: 'al@example.test', team: 'Sales', status: 'away' }
    ], null, 2)
  })
  const env = { DATABASE_PATH: join(dir, 'app.sqlite') }
  const res = await importFile([join(dir, 'advisors.json')], env)
  t.equal(res.code, 0, res.stderr)
  t.same(advisorCodes(env.DATABASE_PATH), ['J1', 'J2'])
})

t.test('any bad row: each is reported with its line and nothing is imported', async t => {
  const dir = t.testdir({
    'bad.csv': `${HEADER}\nC1,Ann,Lee,ann@example.test,Sales,12,busy,\nC2,,Kim,not-an-email,Sales,x1,sleepy,\nC3,Cy,Ro,cy@example.test,Sales,,,yesterday-ish\nC1,Ann,Lee,ann@example.test,Sales,12,busy,\n`,
    'bad.json': '[\n  {"code": "J1", "firstName": "Jo", "lastName": "Ng", "email": "jo@example.test", "team": "Sales"},\n  {\n    "code": "J2",\n    "team": "Sales"\n  }\n]\n'
  })
  const env = { DATABASE_PATH: join(dir, 'app.sqlite') }
  const csv = await runNode(BIN, [join(dir, 'bad.csv')], env)
  t.equal(csv.code, 1)
  t.match(csv.stderr, /bad\.csv: line 3: firstName is required; email "not-an-email" is not an e-mail address; phoneExtension "x1" must be 1 to 10 digits; status "sleepy" must be one of available, busy, away, offline/)
  t.match(csv.stderr, /bad\.csv: line 4: lastSeenAt "yesterday-ish" is not a date-time/)
  t.match(csv.stderr, /bad\.csv: line 5: code "C1" already appears on line 2/)
  t.match(csv.stderr, /Nothing imported: 3 of 4 rows are invalid\./)
  t.notMatch(csv.stderr, /line 2:/)
  const json = await importFile([join(dir, 'bad.json')], env)
  t.equal(json.code, 1)
  t.match(json.stderr, /bad\.json: line 3: firstName is required; lastName is required; email is required/)
  t.match(json.stderr, /Nothing imported: 1 of 2 rows are invalid\./)
})

t.test('usage, unreadable and unknown files are clear errors', async t => {
  const dir = t.testdir({ 'x.txt': 'hello', 'broken.json': '{"a":' })
  const env = { DATABASE_PATH: join(dir, 'app.sqlite') }
  t.match((await importFile([], env)).stderr, /^Usage: npm run advisors:import -- FILE/)
  t.match((await importFile([join(dir, 'x.txt')], env)).stderr, /unknown file type "\.txt": use \.csv or \.json/)
  t.match((await importFile([join(dir, 'missing.csv')], env)).stderr, /cannot read the file/)
  t.match((await importFile([join(dir, 'broken.json')], env)).stderr, /not valid JSON/)
})
