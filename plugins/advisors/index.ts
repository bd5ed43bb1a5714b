import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { Database, Statement } from 'better-sqlite3'
import fp from 'fastify-plugin'
import { packageRoot, sampleAdvisorsFile } from '../../paths.js'
import { checkAdvisorRow, type Advisor, type AdvisorInput } from './record.js'
import { toAdvisor, type AdvisorRow, type AdvisorStore } from './store.js'

/** All SQL on the advisors table (SQLite); statements are prepared once. */
export class AdvisorRepository implements AdvisorStore {
  private readonly byCode: Statement<[string], AdvisorRow>
  private readonly seen: Statement<[string, string]>
  private readonly upsert: Statement<AdvisorInput & { updatedAt: string }>
  private readonly counter: Statement<[], { n: number }>
  private readonly ping: Statement<[], { ok: number }>
  /** Last `last_seen_at` write per code (epoch seconds): the status poll writes at most once a second. */
  private readonly lastSeenWrites = new Map<string, number>()

  constructor (private readonly db: Database) {
    this.byCode = db.prepare('SELECT * FROM advisors WHERE code = ?')
    this.seen = db.prepare('UPDATE advisors SET last_seen_at = ? WHERE code = ?')
    this.upsert = db.prepare(`
      INSERT INTO advisors (code, first_name, last_name, email, team, phone_extension, status, last_seen_at, updated_at)
      VALUES (@code, @firstName, @lastName, @email, @team, @phoneExtension, @status, @lastSeenAt, @updatedAt)
      ON CONFLICT (code) DO UPDATE SET
        first_name = excluded.first_name, last_name = excluded.last_name, email = excluded.email,
        team = excluded.team, phone_extension = excluded.phone_extension, status = excluded.status,
        last_seen_at = COALESCE(excluded.last_seen_at, advisors.last_seen_at), updated_at = excluded.updated_at`)
    this.counter = db.prepare('SELECT count(*) AS n FROM advisors')
    this.ping = db.prepare('SELECT 1 AS ok')
  }

  findByCode (code: string): Advisor | undefined {
    const row = this.byCode.get(code)
    return row === undefined ? undefined : toAdvisor(row)
  }

  /** Records that the advisor was seen now, unless already written within this second. */
  recordSeen (code: string, now: Date): void {
    const second = Math.floor(now.getTime() / 1000)
    if (this.lastSeenWrites.get(code) === second) return
    this.seen.run(now.toISOString(), code)
    this.lastSeenWrites.set(code, second)
  }

  /** Inserts or updates every advisor in one transaction; returns how many. */
  upsertMany (advisors: AdvisorInput[], now = new Date()): number {
    const updatedAt = now.toISOString()
    this.db.transaction(() => {
      for (const advisor of advisors) this.upsert.run({ ...advisor, updatedAt })
    })()
    return advisors.length
  }

  count (): number {
    return this.counter.get()?.n ?? 0
  }

  /** Throws when the database cannot answer a trivial query. */
  check (): void {
    this.ping.get()
  }
}

/** Reads the development sample file; it ships with the code, so a bad row is a bug. */
function readSampleAdvisors (): AdvisorInput[] {
  const file = sampleAdvisorsFile
  const rows = JSON.parse(readFileSync(file, 'utf8')) as unknown[]
  return rows.map((row, index) => {
    const checked = checkAdvisorRow(row)
    if (!checked.ok) throw new Error(`${file}: advisor #${index + 1}: ${checked.problems.join('; ')}`)
    return checked.advisor
  })
}

declare module 'fastify' {
  interface FastifyInstance { advisors: AdvisorStore }
}

const samplesLoaded = (count: number): string =>
  `Loaded ${count} sample advisors from ${relative(packageRoot, sampleAdvisorsFile)} (development only; the table was empty)`

/** The repository of the open connection; reading it throws a 503 while the database is unavailable. */
export default fp(async function advisorsPlugin (app) {
  const postgres = app.postgresDatabase
  if (postgres !== null) {
    // Loaded only here: node-postgres is not loaded at all by a service on SQLite.
    const { PostgresAdvisorRepository } = await import('./postgres-repository.js')
    const repository = new PostgresAdvisorRepository(async () => await postgres.get())
    postgres.onOpen(async pool => {
      // The pool counts as open once this is done: the samples go in through it directly.
      const opening = new PostgresAdvisorRepository(async () => pool)
      if (app.config.nodeEnv !== 'development' || await opening.count() !== 0) return
      app.log.info(samplesLoaded(await opening.upsertMany(readSampleAdvisors())))
    })
    await postgres.open()
    app.decorate('advisors', repository)
    return
  }
  let advisors: AdvisorRepository | null = null
  app.database.onOpen(db => {
    advisors = new AdvisorRepository(db)
    if (app.config.nodeEnv === 'development' && advisors.count() === 0) app.log.info(samplesLoaded(advisors.upsertMany(readSampleAdvisors())))
  })
  app.decorate('advisors', {
    getter: () => {
      app.database.get() // opens it again if it can, or throws the 503
      return advisors as AdvisorRepository
    }
  })
}, { name: 'advisors', dependencies: ['database'] })
