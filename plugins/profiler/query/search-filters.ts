import { Type, type Static, type TObject, type TOptional, type TString } from 'typebox'
import { HttpError } from '../../../lib/http-error.js'
import type { SearchFilters } from '../profile.js'
import { DEFAULT_LIMIT, SEARCH_FILTERS, type SearchParameter } from '../search-filter-declarations.js'

export { DEFAULT_LIMIT, MAX_LIMIT, NO_ROUTE } from '../search-filter-declarations.js'
export { invalid } from '../search-values.js'

/** The search parameters, as Symfony names them (search-filter-declarations.ts); all optional strings (an empty one means "any"). */
export const SearchQuerySchema = Type.Object(Object.fromEntries(SEARCH_FILTERS.map(({ query, maxLength }) =>
  [query, Type.Optional(Type.String({ maxLength }))]))) as TObject<Record<SearchParameter, TOptional<TString>>>

export type SearchQuery = Static<typeof SearchQuerySchema>

/** The parameters a search passes on (every one but `token`), in the declarations' order. */
export const SEARCH_PARAMETERS = SEARCH_FILTERS.filter(declaration => 'parse' in declaration).map(({ query }) => query)

/** How a caller spells each parameter in its error messages (the command line says `--status`); the query's names by default. */
export type ParameterNames = Partial<Record<SearchParameter, string>>

const given = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === '' ? undefined : trimmed
}

/** Validates the query of a search; throws a 400 naming the first bad parameter (as `names` spells it). */
export function parseSearchFilters (query: SearchQuery, names: ParameterNames = {}): SearchFilters {
  const nameOf = (parameter: SearchParameter): string => names[parameter] ?? parameter
  let filters: SearchFilters = { type: 'request', limit: DEFAULT_LIMIT }
  for (const declaration of SEARCH_FILTERS) {
    const value = given(query[declaration.query])
    if (value !== undefined && 'parse' in declaration) filters = { ...filters, ...declaration.parse(value, nameOf(declaration.query)) }
  }
  if (filters.start !== undefined && filters.end !== undefined && filters.start > filters.end) {
    throw new HttpError(400, `Invalid time range: "${nameOf('start')}" (${given(query.start) ?? ''}) is after "${nameOf('end')}" (${given(query.end) ?? ''})`,
      { name: 'BadRequestError' })
  }
  return filters
}
