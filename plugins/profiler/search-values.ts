// The checks the search filters' declarations share: the 400 of a bad value, and a time bound.
import { HttpError } from '../../lib/http-error.js'

export function invalid (name: string, expected: string, value: string): HttpError {
  return new HttpError(400, `Invalid "${name}" parameter "${value}": expected ${expected}`, { name: 'BadRequestError' })
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-](\d{2}):?(\d{2}))?$/

/** The calendar date really exists (Date.parse quietly rolls 2026-02-30 over). */
function realDate (date: string): boolean {
  const time = Date.parse(`${date}T00:00:00Z`)
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(date)
}

/**
 * A bound as epoch milliseconds, inclusive at the precision given: an `end` date covers the
 * whole day, an `end` minute the whole minute. Dates and times without a zone are UTC;
 * digits alone are a Unix time in seconds.
 */
export function parseTimeBound (bound: 'start' | 'end', value: string, spelled: string): number {
  const expected = 'a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM])'
  let time: number
  let precisionMs: number
  const date = DATE.exec(value)
  const dateTime = DATE_TIME.exec(value)
  if (/^\d{1,12}$/.test(value)) {
    time = Number(value) * 1000
    precisionMs = 1000
  } else if (date !== null) {
    if (!realDate(value)) throw invalid(spelled, expected, value)
    time = Date.parse(`${value}T00:00:00Z`)
    precisionMs = 86_400_000
  } else if (dateTime !== null) {
    const [, day = '', hours, minutes, seconds, fraction, zone, zoneHours, zoneMinutes] = dateTime
    if (!realDate(day) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds ?? 0) > 59) throw invalid(spelled, expected, value)
    // An offset is at most ±23:59 (+99:99 denotes no instant: Date.parse gives NaN).
    if (Number(zoneHours ?? 0) > 23 || Number(zoneMinutes ?? 0) > 59) throw invalid(spelled, expected, value)
    time = Date.parse(`${day}T${hours}:${minutes}:${seconds ?? '00'}${fraction ?? ''}${zone ?? 'Z'}`)
    precisionMs = fraction !== undefined ? 1 : seconds !== undefined ? 1000 : 60_000
  } else {
    throw invalid(spelled, expected, value)
  }
  // Whatever the form, a bound the store is given is a real instant (never NaN).
  if (!Number.isFinite(time)) throw invalid(spelled, expected, value)
  return bound === 'start' ? time : time + precisionMs - 1
}
