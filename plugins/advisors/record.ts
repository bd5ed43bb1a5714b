// The advisor record as the API shows it, and the validation of incoming rows
// (import files and the development sample data share it).
import { Type, type Static } from 'typebox'

export const ADVISOR_STATUSES = ['available', 'busy', 'away', 'offline'] as const
type AdvisorStatus = typeof ADVISOR_STATUSES[number]
export const CODE_MAX_LENGTH = 64

/** An advisor as the API answers it (the lookup's 200 response schema). */
export const AdvisorSchema = Type.Object({
  code: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  email: Type.String(),
  team: Type.String(),
  phoneExtension: Type.Union([Type.String(), Type.Null()]),
  status: Type.Enum(ADVISOR_STATUSES),
  lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  updatedAt: Type.String({ format: 'date-time' })
})

export type Advisor = Static<typeof AdvisorSchema>

export type AdvisorInput = Omit<Advisor, 'updatedAt'>
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const EXTENSION = /^[0-9]{1,10}$/

export type RowCheck = { ok: true, advisor: AdvisorInput } | { ok: false, problems: string[] }

/** `first_name` and `firstName` are the same field: CSV headers follow the table, JSON the API. */
function camelKeys (row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(row)) {
    out[key.trim().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = value
  }
  return out
}

function text (value: unknown): string | undefined {
  if (typeof value === 'number') return String(value)
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

/** Validates one raw row; every problem is reported, not only the first. */
export function checkAdvisorRow (raw: unknown): RowCheck {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, problems: ['row is not an object'] }
  }
  const row = camelKeys(raw as Record<string, unknown>)
  const problems: string[] = []
  const required = (name: string, max: number): string => {
    const value = text(row[name])
    if (value === undefined) problems.push(`${name} is required`)
    else if (value.length > max) problems.push(`${name} is longer than ${max} characters`)
    return value ?? ''
  }
  const code = required('code', CODE_MAX_LENGTH)
  const firstName = required('firstName', 100)
  const lastName = required('lastName', 100)
  const email = required('email', 254)
  if (email !== '' && !EMAIL.test(email)) problems.push(`email "${email}" is not an e-mail address`)
  const team = required('team', 100)
  const phoneExtension = text(row.phoneExtension) ?? null
  if (phoneExtension !== null && !EXTENSION.test(phoneExtension)) {
    problems.push(`phoneExtension "${phoneExtension}" must be 1 to 10 digits`)
  }
  const status = text(row.status) ?? 'offline'
  if (!(ADVISOR_STATUSES as readonly string[]).includes(status)) {
    problems.push(`status "${status}" must be one of ${ADVISOR_STATUSES.join(', ')}`)
  }
  const lastSeenText = text(row.lastSeenAt)
  let lastSeenAt: string | null = null
  if (lastSeenText !== undefined) {
    const time = Date.parse(lastSeenText)
    if (Number.isNaN(time)) problems.push(`lastSeenAt "${lastSeenText}" is not a date-time`)
    else lastSeenAt = new Date(time).toISOString()
  }
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    advisor: { code, firstName, lastName, email, team, phoneExtension, status: status as AdvisorStatus, lastSeenAt }
  }
}
