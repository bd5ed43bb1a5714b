import { Type, type Static } from 'typebox'
import { HttpError } from '../../../lib/http-error.js'
import type { SearchFilters } from '../profile.js'

/** The search parameters, as Symfony names them; all optional strings (an empty one means "any"). */
export const SearchQuerySchema = Type.Object({
  ip: Type.Optional(Type.String({ maxLength: 100 })),
  method: Type.Optional(Type.String({ maxLength: 20 })),
  status_code: Type.Optional(Type.String({ maxLength: 10 })),
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  route: Type.Optional(Type.String({ maxLength: 2048 })),
  token: Type.Optional(Type.String({ maxLength: 100 })),
  start: Type.Optional(Type.String({ maxLength: 40 })),
  end: Type.Optional(Type.String({ maxLength: 40 })),
  limit: Type.Optional(Type.String({ maxLength: 10 })),
  type: Type.Optional(Type.String({ maxLength: 20 })),
  deployment: Type.Optional(Type.String({ maxLength: 64 })),
  min_queries: Type.Optional(Type.String({ maxLength: 10 })),
  min_query_ms: Type.Optional(Type.String({ maxLength: 20 })),
  min_level: Type.Optional(Type.String({ maxLength: 10 })),
  trace_id: Type.Optional(Type.String({ maxLength: 64 })),
  sort: Type.Optional(Type.String({ maxLength: 20 }))
})

export type SearchQuery = Static<typeof SearchQuerySchema>

/**
 * The filters a search passes on, in Symfony's order (`route`, `deployment`, `min_queries`, `min_query_ms`, `min_level`, `trace_id`, `sort` are ours;
 * the form has no field for them but `deployment`, `trace_id` and `sort`).
 */
export const SEARCH_PARAMETERS = ['ip', 'method', 'status_code', 'url', 'route', 'start', 'end', 'limit', 'type', 'deployment', 'min_queries', 'min_query_ms',
  'min_level', 'trace_id', 'sort'] as const
/** The orders a search lists its profiles in: the newest first (the default), or the slowest first (`duration`, the newest first among equals). */
const SEARCH_SORTS = ['time', 'duration'] as const
/** The `route` value that selects the requests no route matched (route patterns start with "/"). */
export const NO_ROUTE = 'none'
export const DEFAULT_LIMIT = 10
export const MAX_LIMIT = 100

/** How a caller spells each parameter in its error messages (the command line says `--status`); the query's names by default. */
export type ParameterNames = Partial<Record<'ip' | 'method' | 'status_code' | 'url' | 'route' | 'start' | 'end' | 'limit' | 'type' | 'min_queries' | 'min_query_ms' |
  'min_level' | 'trace_id' | 'sort', string>>

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
function parseTimeBound (name: 'start' | 'end', value: string, spelled: string = name): number {
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
  return name === 'start' ? time : time + precisionMs - 1
}

const given = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === '' ? undefined : trimmed
}

/** Validates the query of a search; throws a 400 naming the first bad parameter (as `names` spells it). */
export function parseSearchFilters (query: SearchQuery, names: ParameterNames = {}): SearchFilters {
  const nameOf = (parameter: keyof ParameterNames): string => names[parameter] ?? parameter
  const filters: SearchFilters = { type: 'request', limit: DEFAULT_LIMIT }
  const type = given(query.type)
  if (type !== undefined && type !== 'request') throw invalid(nameOf('type'), '"request"', type)
  const limit = given(query.limit)
  if (limit !== undefined) {
    if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) throw invalid(nameOf('limit'), `a whole number from 1 to ${MAX_LIMIT}`, limit)
    filters.limit = Number(limit)
  }
  const deployment = given(query.deployment)
  if (deployment !== undefined) filters.deployment = deployment
  const ip = given(query.ip)
  if (ip !== undefined) filters.ip = ip
  const method = given(query.method)
  if (method !== undefined) {
    if (!/^[A-Za-z]{1,20}$/.test(method)) throw invalid(nameOf('method'), 'an HTTP method such as GET or POST', method)
    filters.method = method.toUpperCase()
  }
  const status = given(query.status_code)
  if (status !== undefined) {
    if (!/^[1-5]\d\d$/.test(status)) throw invalid(nameOf('status_code'), 'an HTTP status code from 100 to 599', status)
    filters.statusCode = Number(status)
  }
  const url = given(query.url)
  if (url !== undefined && url !== '!') {
    filters.urlNegated = url.startsWith('!')
    filters.url = filters.urlNegated ? url.slice(1) : url
  }
  const route = given(query.route)
  if (route !== undefined) {
    if (route !== NO_ROUTE && !route.startsWith('/')) throw invalid(nameOf('route'), `a route pattern such as /monitor/MonitorPooling, or "${NO_ROUTE}"`, route)
    filters.route = route === NO_ROUTE ? null : route
  }
  const minQueries = given(query.min_queries)
  if (minQueries !== undefined) {
    if (!/^\d{1,9}$/.test(minQueries)) throw invalid(nameOf('min_queries'), 'a whole number of statements, 0 or more', minQueries)
    filters.minQueries = Number(minQueries)
  }
  const minQueryMs = given(query.min_query_ms)
  if (minQueryMs !== undefined) {
    if (!/^\d{1,9}(\.\d{1,3})?$/.test(minQueryMs)) throw invalid(nameOf('min_query_ms'), 'milliseconds, 0 or more (up to 3 decimals)', minQueryMs)
    filters.minQueryMs = Number(minQueryMs)
  }
  const minLevel = given(query.min_level)
  if (minLevel !== undefined) {
    if (minLevel !== 'warn' && minLevel !== 'error') throw invalid(nameOf('min_level'), '"warn" or "error"', minLevel)
    filters.minLevel = minLevel
  }
  const traceId = given(query.trace_id)
  if (traceId !== undefined) {
    // Trace ids are written in lowercase (W3C); one pasted from a UI that shows them in capitals is the same id.
    if (!/^[0-9a-fA-F]{32}$/.test(traceId)) throw invalid(nameOf('trace_id'), 'a W3C trace id: 32 hexadecimal digits', traceId)
    filters.traceId = traceId.toLowerCase()
  }
  const sort = given(query.sort)
  if (sort !== undefined) {
    if (!(SEARCH_SORTS as readonly string[]).includes(sort)) throw invalid(nameOf('sort'), SEARCH_SORTS.map(name => `"${name}"`).join(' or '), sort)
    if (sort === 'duration') filters.sort = 'duration'
  }
  const start = given(query.start)
  if (start !== undefined) filters.start = parseTimeBound('start', start, nameOf('start'))
  const end = given(query.end)
  if (end !== undefined) filters.end = parseTimeBound('end', end, nameOf('end'))
  if (filters.start !== undefined && filters.end !== undefined && filters.start > filters.end) {
    throw new HttpError(400, `Invalid time range: "${nameOf('start')}" (${start ?? ''}) is after "${nameOf('end')}" (${end ?? ''})`, { name: 'BadRequestError' })
  }
  return filters
}
