// Every search filter, declared once. The page's and the JSON twin's querystring schema and their
// 400s (query/search-filters.ts), the WHERE term on both engines (engine/search-predicates.ts), the
// command line's options and MCP's search_profiles arguments (cli/search.ts) are all
// read from SEARCH_FILTERS: adding a filter is a field of SearchFilters, one declaration below and
// its test (test/unit/search-filter-declarations.test.ts checks each reaches all of them).
import { idRangeOf } from './profile.js'
import { invalid, parseTimeBound } from './search-values.js'
import type { AnsweredByKey, SqlDialect, SqlParameters } from './sql-dialect.js'

/** What a search passes to the engines, parsed; every filter optional. Time bounds are inclusive epoch milliseconds. */
export interface SearchFilters {
  /** Exact name of the deployment that recorded the profile. */
  deployment?: string
  ip?: string
  method?: string
  statusCode?: number
  url?: string
  urlNegated?: boolean
  /** The matched route pattern, exactly; null: requests no route matched. */
  route?: string | null
  start?: number
  end?: number
  /** At least this many statements on the advisors' database. */
  minQueries?: number
  /** At least this much time (ms) in them, all together. */
  minQueryMs?: number
  /** Requests that logged at least one line at this level or above (the logs panel's counts). */
  minLevel?: 'warn' | 'error'
  /** The profiles of one trace (32 lowercase hex digits). */
  traceId?: string
  /** The slowest first (the newest first among equals); absent: the newest first. */
  sort?: 'duration'
  type: string
  limit: number
}

/** The orders a search lists its profiles in: the newest first (the default), or the slowest first (`duration`, the newest first among equals). */
const SEARCH_SORTS = ['time', 'duration'] as const
const LEVELS = ['warn', 'error'] as const
/** The `route` value that selects the requests no route matched (route patterns start with "/"). */
export const NO_ROUTE = 'none'
export const DEFAULT_LIMIT = 10
export const MAX_LIMIT = 100

/** An MCP argument's type (a command-line option is always text): text up to the filter's maxLength, a number, or one of a list. */
export type ArgumentType =
  | { kind: 'text' }
  | { kind: 'integer', min: number, max?: number }
  | { kind: 'number', min: number }
  | { kind: 'choice', values: readonly [string, ...string[]] }

/** A filter's command-line option (`--<name> <value>`) and MCP argument (`name` in camelCase). */
export interface FilterOption {
  name: string
  /** The option's value as its help shows it (`<ms>`). */
  value: string
  /** The command line's help line. */
  help: string
  /** The MCP argument's description. */
  description: string
  type: ArgumentType
  /** Only `search` takes it (not `tail`). */
  searchOnly?: true
}

/** A filter's WHERE term on `profiles p` for both engines (the dialect says how each spells it); undefined when the filters leave it out. */
type SqlTerm = (filters: SearchFilters, params: SqlParameters, dialect: SqlDialect, answered: AnsweredByKey) => string | undefined

export interface SearchFilterDeclaration {
  /** The page's query parameter (Symfony's name where Symfony has it). */
  query: string
  /** The longest value the querystring schema takes (longer: the schema's 400). */
  maxLength: number
  /** Its command-line option and MCP argument; absent: the page only. */
  option?: FilterOption
  /**
   * The value (trimmed, never empty) as filters; throws invalid(name, ...) for a bad one, `name` being
   * the parameter as the caller spells it. Absent: a parameter that is not a filter (`token`).
   */
  parse?: (value: string, name: string) => Partial<SearchFilters>
  /** Its WHERE term; null: the engines use it otherwise (said why). */
  sql: SqlTerm | null
  /** A value it accepts, different from the default (its unit test). */
  example: string
}

function wholeNumber (value: string, name: string, expected: string): number {
  if (!/^\d{1,9}$/.test(value)) throw invalid(name, expected, value)
  return Number(value)
}

function oneOf<T extends string> (values: readonly T[], value: string, name: string, expected: string): T {
  const found = values.find(choice => choice === value)
  if (found === undefined) throw invalid(name, expected, value)
  return found
}

/**
 * The search parameters in Symfony's order (`route`, `deployment`, `min_queries`, `min_query_ms`,
 * `min_level`, `trace_id`, `sort` are ours; the form has no field for them but `deployment`,
 * `trace_id` and `sort`): the order a search passes them on, and of the options and arguments.
 * Values are parsed, and WHERE terms joined, in this order.
 */
export const SEARCH_FILTERS = [
  {
    query: 'ip',
    maxLength: 100,
    option: { name: 'ip', value: '<text>', help: 'client IP contains this text', description: 'Client IP contains this text', type: { kind: 'text' } },
    parse: ip => ({ ip }),
    sql: (filters, params, dialect, answered) => filters.ip === undefined || answered.ip ? undefined : `${dialect.position('p.ip', params.add(filters.ip))} > 0`,
    example: '127.0'
  },
  {
    query: 'method',
    maxLength: 20,
    option: { name: 'method', value: '<method>', help: 'HTTP method, exact, any case', description: 'HTTP method, exact, any case (GET, POST, ...)', type: { kind: 'text' } },
    parse: (method, name) => {
      if (!/^[A-Za-z]{1,20}$/.test(method)) throw invalid(name, 'an HTTP method such as GET or POST', method)
      return { method: method.toUpperCase() }
    },
    sql: (filters, params) => filters.method === undefined ? undefined : `p.method = ${params.add(filters.method)}`,
    example: 'post'
  },
  {
    query: 'status_code',
    maxLength: 10,
    option: { name: 'status', value: '<code>', help: 'HTTP status code, exact', description: 'HTTP status code, exact (e.g. 404)', type: { kind: 'integer', min: 100, max: 599 } },
    parse: (status, name) => {
      if (!/^[1-5]\d\d$/.test(status)) throw invalid(name, 'an HTTP status code from 100 to 599', status)
      return { statusCode: Number(status) }
    },
    sql: (filters, params) => filters.statusCode === undefined ? undefined : `p.status_code = ${params.add(filters.statusCode)}`,
    example: '404'
  },
  {
    query: 'url',
    maxLength: 2048,
    option: {
      name: 'url',
      value: '<text>',
      help: 'URL contains this text; a leading ! negates (!/monitor/)',
      description: 'URL contains this text (case-sensitive); a leading "!" means "does not contain"',
      type: { kind: 'text' }
    },
    // "!" alone negates nothing: no filter.
    parse: url => url === '!' ? {} : url.startsWith('!') ? { url: url.slice(1), urlNegated: true } : { url, urlNegated: false },
    // Compared with the URL's search form: the term must be in that form too (withUrlTermSearchForm).
    sql: (filters, params, dialect, answered) => filters.url === undefined || answered.url
      ? undefined
      : `${dialect.position(dialect.urlSearchForm, params.add(filters.url))} ${filters.urlNegated === true ? '=' : '>'} 0`,
    example: '!/monitor/'
  },
  {
    query: 'route',
    maxLength: 2048,
    parse: (route, name) => {
      if (route !== NO_ROUTE && !route.startsWith('/')) throw invalid(name, `a route pattern such as /monitor/MonitorPooling, or "${NO_ROUTE}"`, route)
      return { route: route === NO_ROUTE ? null : route }
    },
    sql: (filters, params) => filters.route === null ? 'p.route IS NULL' : filters.route === undefined ? undefined : `p.route = ${params.add(filters.route)}`,
    example: NO_ROUTE
  },
  {
    // Not a filter: the page's search goes to this profile, the command line and MCP list it alone.
    query: 'token',
    maxLength: 100,
    option: { name: 'token', value: '<token>', help: 'only this profile (as the page: unknown is an error)', description: 'Only this profile', type: { kind: 'text' }, searchOnly: true },
    sql: null,
    example: 'abc123'
  },
  {
    query: 'start',
    maxLength: 40,
    option: {
      name: 'from',
      value: '<time>',
      help: 'started at or after: 2026-11-22, 2026-11-22T10:30[:15][Z|+01:00] (UTC by default) or Unix seconds',
      description: 'Started at or after: a date (2026-11-22), a date-time (2026-11-22T10:30, UTC unless a zone is given) or Unix seconds',
      type: { kind: 'text' }
    },
    parse: (start, name) => ({ start: parseTimeBound('start', start, name) }),
    // Both bounds as one range of ids (ids follow the request start).
    sql: (filters, params) => {
      if (filters.start === undefined && filters.end === undefined) return undefined
      const { low, high } = idRangeOf(filters.start, filters.end)
      return `p.id BETWEEN ${params.add(low)} AND ${params.add(high)}`
    },
    example: '2026-11-22T10:30'
  },
  {
    query: 'end',
    maxLength: 40,
    option: {
      name: 'until',
      value: '<time>',
      help: 'started at or before, inclusive at the precision given (a date covers the whole day)',
      description: 'Started at or before, inclusive at the precision given (a date covers the whole day)',
      type: { kind: 'text' }
    },
    parse: (end, name) => ({ end: parseTimeBound('end', end, name) }),
    // In start's range term.
    sql: null,
    example: '2026-11-22'
  },
  {
    query: 'limit',
    maxLength: 10,
    option: { name: 'limit', value: '<n>', help: `how many, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`, description: `How many, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`, type: { kind: 'integer', min: 1, max: MAX_LIMIT } },
    parse: (limit, name) => {
      if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) throw invalid(name, `a whole number from 1 to ${MAX_LIMIT}`, limit)
      return { limit: Number(limit) }
    },
    // Each engine's LIMIT.
    sql: null,
    example: '3'
  },
  {
    // Symfony's profile type; only requests are profiled here.
    query: 'type',
    maxLength: 20,
    parse: (type, name) => {
      if (type !== 'request') throw invalid(name, '"request"', type)
      return {}
    },
    sql: (filters, params) => `p.type = ${params.add(filters.type)}`,
    example: 'request'
  },
  {
    query: 'deployment',
    maxLength: 64,
    option: {
      name: 'deployment',
      value: '<name>',
      help: 'recorded by this deployment, exact (PROFILER_DEPLOYMENT of the instance)',
      description: 'Recorded by this deployment (exact name; a store may be shared by several)',
      type: { kind: 'text' }
    },
    parse: deployment => ({ deployment }),
    sql: (filters, params) => filters.deployment === undefined ? undefined : `p.deployment = ${params.add(filters.deployment)}`,
    example: 'blue'
  },
  {
    query: 'min_queries',
    maxLength: 10,
    option: {
      name: 'min-queries',
      value: '<n>',
      help: "ran at least this many statements on the advisors' database",
      description: "Ran at least this many statements on the advisors' database",
      type: { kind: 'integer', min: 0 }
    },
    parse: (minQueries, name) => ({ minQueries: wholeNumber(minQueries, name, 'a whole number of statements, 0 or more') }),
    sql: (filters, params) => filters.minQueries === undefined ? undefined : `p.query_count >= ${params.add(filters.minQueries)}`,
    example: '2'
  },
  {
    query: 'min_query_ms',
    maxLength: 20,
    option: {
      name: 'min-query-ms',
      value: '<ms>',
      help: 'spent at least this many milliseconds in them, all together',
      description: 'Spent at least this many milliseconds in those statements, all together',
      type: { kind: 'number', min: 0 }
    },
    parse: (minQueryMs, name) => {
      if (!/^\d{1,9}(\.\d{1,3})?$/.test(minQueryMs)) throw invalid(name, 'milliseconds, 0 or more (up to 3 decimals)', minQueryMs)
      return { minQueryMs: Number(minQueryMs) }
    },
    sql: (filters, params) => filters.minQueryMs === undefined ? undefined : `p.query_ms >= ${params.add(filters.minQueryMs)}`,
    example: '2.5'
  },
  {
    query: 'min_level',
    maxLength: 10,
    option: {
      name: 'min-level',
      value: '<level>',
      help: 'logged at least one line at this level or above: warn or error',
      description: 'Requests that logged at least one line at this level or above',
      type: { kind: 'choice', values: LEVELS }
    },
    parse: (minLevel, name) => ({ minLevel: oneOf(LEVELS, minLevel, name, '"warn" or "error"') }),
    sql: filters => filters.minLevel === 'warn' ? '(p.log_warnings > 0 OR p.log_errors > 0)' : filters.minLevel === 'error' ? 'p.log_errors > 0' : undefined,
    example: 'warn'
  },
  {
    query: 'trace_id',
    maxLength: 64,
    option: {
      name: 'trace-id',
      value: '<id>',
      help: 'the requests of one distributed trace: its W3C trace id (32 hex digits)',
      description: 'The requests of one distributed trace: its W3C trace id (32 hex digits), as the tracing UI or a traceparent header shows it',
      type: { kind: 'text' }
    },
    parse: (traceId, name) => {
      // Trace ids are written in lowercase (W3C); one pasted from a UI that shows them in capitals is the same id.
      if (!/^[0-9a-fA-F]{32}$/.test(traceId)) throw invalid(name, 'a W3C trace id: 32 hexadecimal digits', traceId)
      return { traceId: traceId.toLowerCase() }
    },
    sql: (filters, params) => filters.traceId === undefined ? undefined : `p.trace_id = ${params.add(filters.traceId)}`,
    example: '4BF92F3577B34DA6A3CE929D0E0E4736'
  },
  {
    query: 'sort',
    maxLength: 20,
    option: {
      name: 'sort',
      value: '<order>',
      help: 'time (newest first, the default) or duration (slowest first)',
      description: 'The order: "time", the newest first (default), or "duration", the slowest first (the newest first among equals)',
      type: { kind: 'choice', values: SEARCH_SORTS },
      searchOnly: true
    },
    parse: (sort, name) => oneOf(SEARCH_SORTS, sort, name, SEARCH_SORTS.map(order => `"${order}"`).join(' or ')) === 'duration' ? { sort: 'duration' } : {},
    // Each engine's ORDER BY (searchOrder).
    sql: null,
    example: 'duration'
  }
] as const satisfies readonly SearchFilterDeclaration[]

/** A search parameter's name, as the page's query spells it. */
export type SearchParameter = typeof SEARCH_FILTERS[number]['query']
