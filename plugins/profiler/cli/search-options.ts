// The search filters as the command line's options and MCP's search_profiles argument names, read
// from their declarations (plugins/profiler/search-filter-declarations.ts): nothing here names a
// filter. The arguments' zod schema is mcp-search-arguments.ts's: zod loads with `mcp` only.
import { Option } from 'commander'
import { SEARCH_FILTERS, type FilterOption, type SearchParameter } from '../search-filter-declarations.js'
import type { ParameterNames, SearchQuery } from '../query/search-filters.js'

type CamelCase<Name extends string> = Name extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name
type Declared = typeof SEARCH_FILTERS[number]
type WithOption = Extract<Declared, { option: FilterOption }>
/** An option's name as commander and MCP spell it (`--min-query-ms`: minQueryMs). */
type ArgumentName = CamelCase<WithOption['option']['name']>

/** The search filters as the command line and the MCP tools name them (the page's are in the declarations), as given: text. */
export type SearchOptions = Partial<Record<ArgumentName, string>>

/** The declarations of the filters the command line and MCP take. */
export const withOption = SEARCH_FILTERS.filter((declaration): declaration is WithOption => 'option' in declaration)

export function camelCase<Name extends string> (name: Name): CamelCase<Name> {
  return name.replace(/-(\w)/g, (_dash, letter: string) => letter.toUpperCase()) as CamelCase<Name>
}

function namesBy (spell: (option: FilterOption) => string): ParameterNames {
  return Object.fromEntries(withOption.map(({ query, option }) => [query, spell(option)]))
}

/** The command line's spelling of each page parameter, for error messages (`Invalid "--status" parameter ...`). */
export const OPTION_NAMES = namesBy(option => `--${option.name}`)

/** The MCP tools' spelling: their argument names. */
export const ARGUMENT_NAMES = namesBy(option => camelCase(option.name))

const searchOnly = (option: FilterOption): boolean => option.searchOnly === true

/** The options of `search` (every one) or `tail` (those not only for search), in the declarations' order. */
export function filterOptions (command: 'search' | 'tail'): Option[] {
  return withOption
    .filter(({ option }) => command === 'search' || !searchOnly(option))
    .map(({ option }) => new Option(`--${option.name} ${option.value}`, option.help))
}

/** MCP's arguments as the command line's options: numbers as the text they would be typed as. */
export function optionsOfArguments (args: Record<string, string | number | undefined>): SearchOptions {
  return Object.fromEntries(Object.entries(args).map(([name, value]) => [name, value?.toString()]))
}

/** The options as the page's query (so that the page's validation and semantics apply). */
export function queryOfOptions (options: SearchOptions): SearchQuery {
  const query: Partial<Record<SearchParameter, string>> = {}
  for (const { query: parameter, option } of withOption) query[parameter] = options[camelCase(option.name)]
  return query
}
