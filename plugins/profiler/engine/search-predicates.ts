// The search filters as SQL, written once for both engines (each filter's term is declared with it,
// search-filter-declarations.ts): each engine names its placeholders and its substring function,
// and adds the index lookups only it has (see each engine's search).
import type { SearchFilters } from '../profile.js'
import { SEARCH_FILTERS } from '../search-filter-declarations.js'
import { urlSearchForm } from './url-search-form.js'
import type { AnsweredByKey, SqlDialect, SqlParameters } from '../sql-dialect.js'

/** The filters with their URL term (if any) in the search form URLs are searched in (urlSearchForm). */
export function withUrlTermSearchForm (filters: SearchFilters): SearchFilters {
  return filters.url === undefined ? filters : { ...filters, url: urlSearchForm(filters.url) }
}

/**
 * The WHERE terms of every filter, on `profiles p`, to be joined with AND in this order (each adds
 * its parameters as it goes). Substrings are compared as they are (case-sensitive, a NUL included);
 * a URL term is compared with the URL's search form, so it must be in that form too (withUrlTermSearchForm).
 */
export function filterTerms (filters: SearchFilters, params: SqlParameters, dialect: SqlDialect, answered: AnsweredByKey): string[] {
  const terms: string[] = []
  for (const { sql } of SEARCH_FILTERS) {
    const term = sql?.(filters, params, dialect, answered)
    if (term !== undefined) terms.push(term)
  }
  return terms
}

/**
 * The ORDER BY of a search, on `profiles p` (or on its rows as `alias`): the newest first, or the
 * slowest first with the newest first among equals (ids are unique: one order, whatever the plan).
 */
export function searchOrder (filters: SearchFilters, alias = 'p'): string {
  return filters.sort === 'duration' ? `${alias}.duration_ms DESC, ${alias}.id DESC` : `${alias}.id DESC`
}

/** searchOrder for rows already read (merging the rows of several index lookups). */
export function compareRows (filters: SearchFilters): (a: { id: number, duration_ms: number }, b: { id: number, duration_ms: number }) => number {
  return filters.sort === 'duration' ? (a, b) => b.duration_ms - a.duration_ms || b.id - a.id : (a, b) => b.id - a.id
}
