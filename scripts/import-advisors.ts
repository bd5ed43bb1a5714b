// npm run advisors:import -- FILE
// Validates every row first; imports nothing if any row is bad, else upserts all rows in one transaction.
import { ConfigError, loadConfig } from '../config.js'
import { migratePostgres } from '../lib/postgres/migrate.js'
import { createPool } from '../lib/postgres/pool.js'
import { withoutPassword } from '../lib/postgres/url.js'
import { migrationsDir, postgresMigrationsDir } from '../paths.js'
import { checkAdvisorRow, type AdvisorInput } from '../plugins/advisors/record.js'
import { AdvisorRepository } from '../plugins/advisors/index.js'
import { PostgresAdvisorRepository } from '../plugins/advisors/postgres-repository.js'
import { openSqlite } from '../lib/sqlite/open.js'
import { AdvisorFileError, readAdvisorFile, type NumberedRow } from './advisor-file.js'

function fail (message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

/** Every bad row, as `line N: problem; problem`, and the valid advisors. */
function validate (rows: NumberedRow[]): { advisors: AdvisorInput[], errors: string[] } {
  const advisors: AdvisorInput[] = []
  const errors: string[] = []
  const firstLineOfCode = new Map<string, number>()
  for (const { line, row } of rows) {
    const checked = checkAdvisorRow(row)
    if (!checked.ok) {
      errors.push(`line ${line}: ${checked.problems.join('; ')}`)
      continue
    }
    const seenOn = firstLineOfCode.get(checked.advisor.code)
    if (seenOn !== undefined) {
      errors.push(`line ${line}: code "${checked.advisor.code}" already appears on line ${seenOn}`)
      continue
    }
    firstLineOfCode.set(checked.advisor.code, line)
    advisors.push(checked.advisor)
  }
  return { advisors, errors }
}

const file = process.argv[2]
if (file === undefined || file === '') fail('Usage: npm run advisors:import -- FILE   (FILE: .csv with a header row, or .json array)')

let config
try {
  config = loadConfig()
} catch (err) {
  if (err instanceof ConfigError) fail(err.message)
  throw err
}

let rows: NumberedRow[]
try {
  rows = readAdvisorFile(file)
} catch (err) {
  if (err instanceof AdvisorFileError) fail(`${file}: ${err.message}`)
  throw err
}

const { advisors, errors } = validate(rows)
if (errors.length > 0) {
  for (const error of errors) process.stderr.write(`${file}: ${error}\n`)
  fail(`Nothing imported: ${errors.length} of ${rows.length} rows are invalid.`)
}

// Into whichever database the service uses: PostgreSQL (DATABASE_URL) or the SQLite file.
if (config.databaseUrl !== null) {
  const pool = createPool(config.databaseUrl, { max: 1, applicationName: 'advisors import' })
  try {
    await migratePostgres(pool, postgresMigrationsDir)
    const count = await new PostgresAdvisorRepository(async () => pool).upsertMany(advisors)
    process.stdout.write(`Imported ${count} advisors into ${withoutPassword(config.databaseUrl)}\n`)
  } catch (err) {
    fail(`Nothing imported: ${(err as Error).message}`)
  } finally {
    await pool.end()
  }
} else {
  const { db } = openSqlite(config.databasePath, migrationsDir)
  try {
    const count = new AdvisorRepository(db).upsertMany(advisors)
    process.stdout.write(`Imported ${count} advisors into ${config.databasePath}\n`)
  } finally {
    db.close()
  }
}
