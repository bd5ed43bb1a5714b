// The advisors import as a function (the bin, scripts/import-advisors.ts, runs it on the process's
// arguments, environment and streams; tests run it in-process).
// Validates every row first; imports nothing if any row is bad, else upserts all rows in one transaction.
import type { Writable } from 'node:stream'
import { ConfigError, loadConfig } from '../config.js'
import { migratePostgres } from '../lib/postgres/migrate.js'
import { createPool } from '../lib/postgres/pool.js'
import { withoutPassword } from '../lib/postgres/url.js'
import { appSqliteMigrationsDir, appPostgresMigrationsDir } from '../paths.js'
import { checkAdvisorRow, type AdvisorInput } from '../plugins/advisors/record.js'
import { AdvisorRepository } from '../plugins/advisors/index.js'
import { PostgresAdvisorRepository } from '../plugins/advisors/postgres-repository.js'
import { openSqlite } from '../lib/sqlite/open.js'
import { AdvisorFileError, readAdvisorFile, type NumberedRow } from './advisor-file.js'

/** Where an import reads its settings and writes its report. */
export interface ImportIo {
  /** The service's variables: DATABASE_URL, else DATABASE_PATH. */
  env: Record<string, string | undefined>
  stdout: Writable
  stderr: Writable
}

/** Ends the import with exit code 1 and this message. */
class ImportFailure extends Error {}

function fail (message: string): never {
  throw new ImportFailure(message)
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

/** Imports the file `args[0]` names; resolves with the exit code (0, or 1 with the reasons on stderr). */
export async function importAdvisors (args: string[], { env, stdout, stderr }: ImportIo): Promise<number> {
  try {
    stdout.write(`${await importFile(args[0], env, stderr)}\n`)
    return 0
  } catch (err) {
    if (!(err instanceof ImportFailure)) throw err
    stderr.write(`${err.message}\n`)
    return 1
  }
}

/** The import; resolves with its one-line report, or throws an ImportFailure. */
async function importFile (file: string | undefined, env: ImportIo['env'], stderr: Writable): Promise<string> {
  if (file === undefined || file === '') fail('Usage: npm run advisors:import -- FILE   (FILE: .csv with a header row, or .json array)')

  let config
  try {
    config = loadConfig(env)
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
    for (const error of errors) stderr.write(`${file}: ${error}\n`)
    fail(`Nothing imported: ${errors.length} of ${rows.length} rows are invalid.`)
  }

  // Into whichever database the service uses: PostgreSQL (DATABASE_URL) or the SQLite file.
  if (config.databaseUrl !== null) {
    const pool = createPool(config.databaseUrl, { max: 1, applicationName: 'advisors import' })
    try {
      await migratePostgres(pool, appPostgresMigrationsDir)
      const count = await new PostgresAdvisorRepository(async () => pool).upsertMany(advisors)
      return `Imported ${count} advisors into ${withoutPassword(config.databaseUrl)}`
    } catch (err) {
      fail(`Nothing imported: ${(err as Error).message}`)
    } finally {
      await pool.end()
    }
  }
  const { db } = openSqlite(config.databasePath, appSqliteMigrationsDir)
  try {
    const count = new AdvisorRepository(db).upsertMany(advisors)
    return `Imported ${count} advisors into ${config.databasePath}`
  } finally {
    db.close()
  }
}
