import { findStoredProfile } from '../../plugins/profiler/query/profile-lookup.js'
import { parseSearchFilters, type ParameterNames } from '../../plugins/profiler/query/search-filters.js'
import type { ProfileSummary, SearchFilters } from '../../plugins/profiler/profile.js'
import type { ReadOnlyStore } from '../../plugins/profiler/engine/open-read-only.js'

/** The search filters as the command line and the MCP tools name them (the page's are in brackets). */
export interface SearchOptions {
  ip?: string
  method?: string
  /** [status_code] */
  status?: string
  url?: string
  token?: string
  /** [start] */
  from?: string
  /** [end] */
  until?: string
  limit?: string
  /** Which deployment recorded it, exact (stores shared by several deployments). */
  deployment?: string
  /** [min_queries] */
  minQueries?: string
  /** [min_query_ms] */
  minQueryMs?: string
  /** [min_level] warn or error: requests that logged at that level or above. */
  minLevel?: string
  /** [trace_id] the profiles of one W3C trace. */
  traceId?: string
  /** [sort] time (newest first, the default) or duration (slowest first). */
  sort?: string
}

/** The command line's spelling of each page parameter, for error messages (`Invalid "--status" parameter ...`). */
export const OPTION_NAMES: ParameterNames = {
  ip: '--ip',
  method: '--method',
  status_code: '--status',
  url: '--url',
  start: '--from',
  end: '--until',
  limit: '--limit',
  min_queries: '--min-queries',
  min_query_ms: '--min-query-ms',
  min_level: '--min-level',
  trace_id: '--trace-id',
  sort: '--sort'
}

/** The MCP tools' spelling: their argument names. */
export const ARGUMENT_NAMES: ParameterNames = {
  ip: 'ip',
  method: 'method',
  status_code: 'status',
  url: 'url',
  start: 'from',
  end: 'until',
  limit: 'limit',
  min_queries: 'minQueries',
  min_query_ms: 'minQueryMs',
  min_level: 'minLevel',
  trace_id: 'traceId',
  sort: 'sort'
}

/** The page's validation and semantics, on our option names; throws the page's 400 (a usage error here). */
export function searchFilters (options: SearchOptions, names: ParameterNames): SearchFilters {
  return parseSearchFilters({
    ip: options.ip,
    method: options.method,
    status_code: options.status,
    url: options.url,
    start: options.from,
    end: options.until,
    limit: options.limit,
    deployment: options.deployment,
    min_queries: options.minQueries,
    min_query_ms: options.minQueryMs,
    min_level: options.minLevel,
    trace_id: options.traceId,
    sort: options.sort
  }, names)
}

function summaryOf ({ token, ip, method, url, status, time, durationMs, deployment, queries, queryMs, warnings, errors, traceId }: ProfileSummary): ProfileSummary {
  return { token, ip, method, url, status, time, durationMs, deployment, queries, queryMs, warnings, errors, traceId }
}

/**
 * The search, newest first (or slowest first: `sort`). A token means that profile alone, as on the page (whose search
 * redirects to it); an unknown token is the page's 404 `Token "..." not found.`.
 */
export async function searchProfiles (reader: ReadOnlyStore, options: SearchOptions, names: ParameterNames): Promise<ProfileSummary[]> {
  const filters = searchFilters(options, names)
  const token = options.token?.trim() ?? ''
  if (token !== '') return [summaryOf(await findStoredProfile(reader, token))]
  return await reader.search(filters)
}
