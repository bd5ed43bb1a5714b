// run-suite: shares a process
// Every declared search filter reaches everything derived from its declaration: the page's
// querystring schema and parser, the WHERE terms of both engines' dialects, the command line's
// options and error names, MCP's search_profiles arguments. A filter added to SEARCH_FILTERS is
// checked here without another edit (plugins/profiler/search-filter-declarations.ts).
import t from 'tap'
import { SEARCH_FILTERS, type SearchFilterDeclaration } from '../../plugins/profiler/search-filter-declarations.js'
import { parseSearchFilters, SEARCH_PARAMETERS, SearchQuerySchema } from '../../plugins/profiler/query/search-filters.js'
import { filterTerms } from '../../plugins/profiler/engine/search-predicates.js'
import { SqlParameters, type SqlDialect } from '../../plugins/profiler/sql-dialect.js'
import { ARGUMENT_NAMES, filterOptions, OPTION_NAMES, optionsOfArguments, queryOfOptions } from '../../plugins/profiler/cli/search-options.js'
import { searchArguments } from '../../plugins/profiler/cli/mcp-search-arguments.js'

// The two engines' ways of writing the same term (as engine/sqlite/profile-search.ts and engine/postgres/reader.ts give them).
const DIALECTS: Record<'sqlite' | 'postgres', SqlDialect> = {
  sqlite: { placeholder: () => '?', position: (haystack, needle) => `instr(${haystack}, ${needle})`, urlSearchForm: 'p.url' },
  postgres: { placeholder: n => `$${n}`, position: (haystack, needle) => `strpos(${haystack}, ${needle})`, urlSearchForm: 'p.url' }
}
const NOT_ANSWERED = { ip: false, url: false }
const declarations: readonly SearchFilterDeclaration[] = SEARCH_FILTERS
const DEFAULTS = parseSearchFilters({})

function termsOf (filters: typeof DEFAULTS, dialect: SqlDialect): { terms: string[], values: unknown[] } {
  const params = new SqlParameters(dialect)
  return { terms: filterTerms(filters, params, dialect, NOT_ANSWERED), values: params.values }
}

t.test('every parameter is declared once', async t => {
  const names = declarations.map(declaration => declaration.query)
  t.same(new Set(names).size, names.length, 'no name twice')
  t.same(Object.keys(SearchQuerySchema.properties), names, 'the querystring schema: every declared parameter, in their order, no other')
  t.same(SEARCH_PARAMETERS, declarations.filter(declaration => declaration.parse !== undefined).map(declaration => declaration.query),
    'the parameters a search passes on: every filter, in their order')
})

for (const declaration of declarations) {
  const { query, maxLength, option, parse, sql, example } = declaration
  t.test(`${query}: the page, both engines' SQL, the command line and MCP`, async t => {
    t.match(SearchQuerySchema.properties[query as keyof typeof SearchQuerySchema.properties], { type: 'string', maxLength }, 'the querystring schema bounds it')
    t.ok(example.length <= maxLength, 'its example fits its bound')
    const parsed = parseSearchFilters({ [query]: example })
    if (parse !== undefined) t.same(parsed, { ...DEFAULTS, ...parse(example, query) }, 'the page\'s parser applies its declaration')
    else t.same(parsed, DEFAULTS, 'not a filter: the filters are the defaults')

    if (sql !== null) {
      const own = sql(parsed, new SqlParameters(DIALECTS.sqlite), DIALECTS.sqlite, NOT_ANSWERED) ?? ''
      t.not(own, '', 'its example makes a WHERE term')
      const always = termsOf(DEFAULTS, DIALECTS.sqlite).terms.includes(own)
      for (const [engine, dialect] of Object.entries(DIALECTS)) {
        const withIt = termsOf(parsed, dialect)
        t.equal(withIt.terms.length, termsOf(DEFAULTS, dialect).terms.length + (always ? 0 : 1), `${engine}: the search's WHERE has its term`)
        if (engine === 'sqlite') t.ok(withIt.terms.includes(own), 'the very term declared')
        else t.notOk(withIt.terms.some(term => term.includes('?')), 'PostgreSQL\'s placeholders are numbered')
      }
    }

    if (option === undefined) {
      t.notOk(query in OPTION_NAMES, 'not on the command line')
      return
    }
    const flag = `--${option.name}`
    const argument = ARGUMENT_NAMES[query as keyof typeof ARGUMENT_NAMES] ?? ''
    t.equal(OPTION_NAMES[query as keyof typeof OPTION_NAMES], flag, 'the command line\'s error messages name its option')
    for (const command of ['search', 'tail'] as const) {
      const found = filterOptions(command).find(candidate => candidate.long === flag)
      if (command === 'tail' && option.searchOnly === true) {
        t.notOk(found, 'tail has no such option')
        continue
      }
      t.equal(found?.description, option.help, `${command}: the option and its help line`)
      t.equal(found?.attributeName(), argument, `${command}: commander's name for it is the MCP argument's`)
    }
    const schema = searchArguments()[argument]
    t.equal(schema?.description, option.description, 'MCP: the argument and its description')
    const given = option.type.kind === 'integer' || option.type.kind === 'number' ? Number(example) : example
    t.ok(schema?.safeParse(given).success, 'MCP: its example is a valid argument')
    t.notOk(schema?.safeParse('x'.repeat(maxLength + 1)).success, 'MCP: a value beyond its type or bound is refused')
    const passed = queryOfOptions(optionsOfArguments({ [argument]: given }))
    t.equal(passed[query as keyof typeof passed], String(given), 'MCP\'s and the command line\'s value reaches the page\'s parameter')
  })
}

t.test('MCP and the command line: the declared options, no other', async t => {
  const withOption = declarations.filter(declaration => declaration.option !== undefined)
  t.same(Object.keys(searchArguments()), withOption.map(declaration => ARGUMENT_NAMES[declaration.query as keyof typeof ARGUMENT_NAMES]))
  t.same(filterOptions('search').map(option => option.long), withOption.map(declaration => `--${declaration.option?.name ?? ''}`))
})
