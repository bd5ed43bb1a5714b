// The search filters as the command line's options and MCP's search_profiles arguments, read from
// their declarations (plugins/profiler/search-filter-declarations.ts): nothing here names a filter.
import { Option } from 'commander'
import { z } from 'zod'
import { SEARCH_FILTERS, type ArgumentType, type FilterOption, type SearchParameter } from '../search-filter-declarations.js'
import type { ParameterNames, SearchQuery } from '../query/search-filters.js'

type CamelCase<Name extends string> = Name extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name
type Declared = typeof SEARCH_FILTERS[number]
type WithOption = Extract<Declared, { option: FilterOption }>
/** An option's name as commander and MCP spell it (`--min-query-ms`: minQueryMs). */
type ArgumentName = CamelCase<WithOption['option']['name']>

/** The search filters as the command line and the MCP tools name them (the page's are in the declarations), as given: text. */
export type SearchOptions = Partial<Record<ArgumentName, string>>

const withOption = SEARCH_FILTERS.filter((declaration): declaration is WithOption => 'option' in declaration)

function camelCase<Name extends string> (name: Name): CamelCase<Name> {
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

function argumentType (type: ArgumentType, maxLength: number): z.ZodType<string | number> {
  switch (type.kind) {
    case 'text': return z.string().max(maxLength)
    case 'integer': return type.max === undefined ? z.number().int().min(type.min) : z.number().int().min(type.min).max(type.max)
    case 'number': return z.number().min(type.min)
    case 'choice': return z.enum(type.values)
  }
}

/** search_profiles' input schema: one optional argument per option. */
export function searchArguments (): Record<string, z.ZodOptional<z.ZodType<string | number>>> {
  return Object.fromEntries(withOption.map(({ maxLength, option }) =>
    [camelCase(option.name), argumentType(option.type, maxLength).optional().describe(option.description)]))
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
