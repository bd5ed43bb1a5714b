// What both advisor repositories (SQLite, PostgreSQL) share: the row, its mapping, their interface.
import type { Advisor, AdvisorInput } from './record.js'

export interface AdvisorRow {
  code: string
  first_name: string
  last_name: string
  email: string
  team: string
  phone_extension: string | null
  status: Advisor['status']
  last_seen_at: string | null
  updated_at: string
}

export function toAdvisor (row: AdvisorRow): Advisor {
  return {
    code: row.code,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    team: row.team,
    phoneExtension: row.phone_extension,
    status: row.status,
    lastSeenAt: row.last_seen_at,
    updatedAt: row.updated_at
  }
}

/** What the routes and the import script use, whichever database is behind (SQLite answers at once). */
export interface AdvisorStore {
  findByCode: (code: string) => Advisor | undefined | Promise<Advisor | undefined>
  /** Records that the advisor was seen now, unless already written within this second. */
  recordSeen: (code: string, now: Date) => void | Promise<void>
  /** Inserts or updates every advisor in one transaction; returns how many. */
  upsertMany: (advisors: AdvisorInput[], now?: Date) => number | Promise<number>
  count: () => number | Promise<number>
  /** Throws when the database cannot answer a trivial query. */
  check: () => void | Promise<void>
}
