import { findStoredProfile } from '../query/profile-lookup.js'
import { parseSearchFilters, type ParameterNames } from '../query/search-filters.js'
import type { ProfileSummary, SearchFilters } from '../profile.js'
import type { ReadOnlyStore } from '../engine/open-read-only.js'
import { queryOfOptions, type SearchOptions } from './search-options.js'

/** The page's validation and semantics, on our option names; throws the page's 400 (a usage error here). */
export function searchFilters (options: SearchOptions, names: ParameterNames): SearchFilters {
  return parseSearchFilters(queryOfOptions(options), names)
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
