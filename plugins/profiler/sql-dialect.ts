// What the engines' SQL differs in, and a statement's parameters: what the search filters' WHERE
// terms (search-filter-declarations.ts) and the engines' shared statements (engine/search-predicates.ts,
// engine/rollup-periods.ts) are written with. At the top level, below engine/, because the declarations
// write their terms with it and the engines read the declarations.

/** What differs between the engines' SQL for the same filter. */
export interface SqlDialect {
  /** The placeholder of the nth parameter, counted from 1 (`?` in SQLite, `$n` in PostgreSQL). */
  placeholder: (n: number) => string
  /** An expression that is the 1-based position of `needle` in `haystack`, 0 when absent (instr, strpos). */
  position: (haystack: string, needle: string) => string
  /**
   * The search form of the URL of `profiles p` (engine/url-search-form.ts), read from the distinct URLs'
   * table. Only a URL holding a `%` can differ from its form: the others are not looked up.
   */
  urlSearchForm: string
}

/** A statement's parameters, in the order their placeholders appear in its text. */
export class SqlParameters {
  readonly values: unknown[] = []

  constructor (private readonly dialect: SqlDialect) {}

  /** Adds a value; returns its placeholder. */
  add (value: unknown): string {
    this.values.push(value)
    return this.dialect.placeholder(this.values.length)
  }
}

/** Substring filters an engine's index lookup has answered exactly, so that the rows need no check. */
export interface AnsweredByKey { ip: boolean, url: boolean }
