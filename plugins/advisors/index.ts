import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { Database, Statement } from 'better-sqlite3'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { packageRoot, sampleAdvisorsFile } from '../../paths.js'
import { checkAdvisorRow, type Advisor, type AdvisorInput } from './record.js'
import { recordSync, type StatementLog } from '../../lib/statement-log.js'
import { toAdvisor, type AdvisorRow, type AdvisorStore } from './store.js'

const UPSERT = `
  INSERT INTO advisors (code, first_name, last_name, email, team, phone_extension, status, last_seen_at, updated_at)
  VALUES (@code, @firstName, @lastName, @email, @team, @phoneExtension, @status, @lastSeenAt, @updatedAt)
  ON CONFLICT (code) DO UPDATE SET
    first_name = excluded.first_name, last_name = excluded.last_name, email = excluded.email,
    team = excluded.team, phone_extension = excluded.phone_extension, status = excluded.status,
    last_seen_at = COALESCE(excluded.last_seen_at, advisors.last_seen_at), updated_at = excluded.updated_at`

/** What every view of one connection's repository shares: the statements, prepared once, and the write throttle. */
function prepareStatements (db: Database) {
  return {
    db,
    byCode: db.prepare('SELECT * FROM advisors WHERE code = ?') as Statement<[string], AdvisorRow>,
    seen: db.prepare('UPDATE advisors SET last_seen_at = ? WHERE code = ?') as Statement<[string, string]>,
    upsert: db.prepare(UPSERT) as Statement<AdvisorInput & { updatedAt: string }>,
    counter: db.prepare('SELECT count(*) AS n FROM advisors') as Statement<[], { n: number }>,
    ping: db.prepare('SELECT 1 AS ok') as Statement<[], { ok: number }>,
    /** Last `last_seen_at` write per code (epoch seconds): the status poll writes at most once a second. */
    lastSeenWrites: new Map<string, number>()
  }
}

const one = (row: unknown): number => row === undefined ? 0 : 1

/** All SQL on the advisors table (SQLite); statements are prepared once. */
export class AdvisorRepository implements AdvisorStore {
  private readonly shared: ReturnType<typeof prepareStatements>

  /** `log`: where this view records the statements it runs (a profiled request's), or null. */
  constructor (db: Database | AdvisorRepository, private readonly log: StatementLog | null = null) {
    this.shared = db instanceof AdvisorRepository ? db.shared : prepareStatements(db)
  }

  /** The same repository, its statements recorded in `log`. */
  recordingInto (log: StatementLog): AdvisorRepository {
    return new AdvisorRepository(this, log)
  }

  findByCode (code: string): Advisor | undefined {
    const { byCode } = this.shared
    const row = recordSync(this.log, byCode.source, [code], () => byCode.get(code), one)
    return row === undefined ? undefined : toAdvisor(row)
  }

  /** Records that the advisor was seen now, unless already written within this second. */
  recordSeen (code: string, now: Date): void {
    const { seen, lastSeenWrites } = this.shared
    const second = Math.floor(now.getTime() / 1000)
    if (lastSeenWrites.get(code) === second) return
    const at = now.toISOString()
    recordSync(this.log, seen.source, [at, code], () => seen.run(at, code), result => result.changes)
    lastSeenWrites.set(code, second)
  }

  /** Inserts or updates every advisor in one transaction; returns how many. */
  upsertMany (advisors: AdvisorInput[], now = new Date()): number {
    const { db, upsert } = this.shared
    const updatedAt = now.toISOString()
    db.transaction(() => {
      for (const advisor of advisors) {
        const params = { ...advisor, updatedAt }
        recordSync(this.log, upsert.source, params, () => upsert.run(params), result => result.changes)
      }
    })()
    return advisors.length
  }

  count (): number {
    const { counter } = this.shared
    return recordSync(this.log, counter.source, [], () => counter.get(), one)?.n ?? 0
  }

  /** Throws when the database cannot answer a trivial query. */
  check (): void {
    const { ping } = this.shared
    recordSync(this.log, ping.source, [], () => ping.get(), one)
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
  interface FastifyRequest {
    /** app.advisors, recording its statements in the request's databaseStatements when something records them (the profiler). */
    advisors: AdvisorStore
  }
}

/** The request's view of a repository: the same one, or one recording into the request's statements. */
function decorateRequestView<R extends AdvisorStore> (app: FastifyInstance, repository: () => R, recording: (repository: R, log: StatementLog) => R): void {
  app.decorateRequest<AdvisorStore>('advisors', {
    getter (this: FastifyRequest): AdvisorStore {
      const log = this.databaseStatements
      return log === null ? repository() : recording(repository(), log)
    }
  })
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
    decorateRequestView(app, () => repository, (shared, log) => shared.recordingInto(log))
    return
  }
  let advisors: AdvisorRepository | null = null
  app.database.onOpen(db => {
    advisors = new AdvisorRepository(db)
    if (app.config.nodeEnv === 'development' && advisors.count() === 0) app.log.info(samplesLoaded(advisors.upsertMany(readSampleAdvisors())))
  })
  const current = (): AdvisorRepository => {
    app.database.get() // opens it again if it can, or throws the 503
    return advisors as AdvisorRepository
  }
  app.decorate('advisors', { getter: current })
  decorateRequestView(app, current, (shared, log) => shared.recordingInto(log))
}, { name: 'advisors', dependencies: ['database'] })
