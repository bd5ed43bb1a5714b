// A profiler panel, after Symfony's DataCollector, declared once: its name and label, the schema
// of its data (the type comes from it; the schema itself is in panel-schemas.ts, not on the panel:
// the profiler's threads run the panels' code, and TypeBox with the schemas was half a thread's
// start), how it collects that data from a finished request, what it leaves out of the stored
// JSON because the profile's row holds it, and its view for the page.
import type pg from 'pg'
import type { Static, TSchema } from 'typebox'
import type { Redactor } from '../../../lib/redact.js'
import type { RequestCapture } from '../capture/capture.js'
import type { PanelProbe } from './probe.js'
import type { RowCounts } from '../row-counts.js'
import type { HookSite } from './timeline/hook-runs.js'

/** What a panel may read about one finished request (in the writer thread, see writer/shape.ts). */
export interface CollectContext {
  /** What the request thread captured, not yet redacted. */
  capture: RequestCapture
  /**
   * The data of a panel listed before this one in the index (the timeline reads the db and logs
   * panels'), as its collector gave it; undefined for a later or per-process panel.
   */
  collected: <S extends TSchema>(panel: Panel<S, any, any>) => Static<S> | undefined
  /** The absolute request URL, secrets redacted. */
  url: string
  /** The response body when it was JSON and small enough to keep, else undefined: as JSON.parse made it, for this profile alone (the request panel redacts it in place). */
  responseBody: unknown
  /** Every value taken from the request or the reply goes through it. */
  redactor: Redactor
  /**
   * The place of a hook site in its process's sites (stored once per process: writer/process-panels.ts);
   * absent: the timeline stores the sites it names with each profile.
   */
  sitePlace?: (site: HookSite) => number
}

/**
 * What a per-process panel may read (in the writer thread, once per process): the same for every
 * profile the process records.
 */
export interface ProcessContext {
  /** The app's resolved configuration (config.ts) as the profiler was given it: not yet redacted. */
  configuration: Readonly<Record<string, unknown>>
  /** This deployment's name (PROFILER_DEPLOYMENT). */
  deployment: string
  /** When the process started, epoch ms. */
  startedAtMs: number
  redactor: Redactor
}

/** A profile page's query string, as the page was asked for (`?panel=logs&level=warn`). */
export type PageQuery = Readonly<Record<string, unknown>>

/** The counts a profile's row holds for its listing's filters (row-counts.ts), each given by the panel that has it. */
export type PanelRowCounts = RowCounts

/** A profile's panels as read back so far, by name. */
export type ReadPanels = Readonly<Record<string, unknown>>

/** What a profile's row holds of its panels' values. */
export interface PanelRowValues { method: string, url: string, route: string | null, status: number, durationMs: number, queries: number, queryMs: number }

/** What a panel's view may read of the configuration. */
export interface ViewSettings {
  /** Statements slower than this are marked slow (PROFILER_SLOW_QUERY). */
  slowQueryMs: number
  /** The page's query string as given (unvalidated: a value may be missing or a list): the logs panel's `level`. */
  query: PageQuery
}

/**
 * The service's own database as a panel's page may read it, on demand (the db panel's Explain):
 * SQLite by its file (the page opens its own read-only connection), or PostgreSQL's pool.
 * `where` names it for people (a URL without its password).
 */
export type AppDatabase =
  | { engine: 'sqlite', where: string, path: string }
  | { engine: 'postgres', where: string, pool: () => Promise<pg.Pool> }

/** What a panel's page may use besides the panel's data. */
interface PanelPageContext {
  /** The page's query string as given (unvalidated: a value may be missing or a list). */
  query: PageQuery
  /** The service's advisors' database; null when the service has none to read. */
  appDatabase: AppDatabase | null
}

/**
 * A page of a panel's own beside the profile page, at `/_profiler/<token>/<panel>/<path>` with its
 * JSON twin, under the same security as every profiler page (the db panel's Explain). Its partial is
 * `panel-<panel>-<path>.hbs`, given the answer as `answer`.
 */
export interface PanelPage<S extends TSchema = TSchema> {
  /** The path after the panel's name: `explain`. */
  readonly path: string
  /** The page's heading. */
  readonly title: string
  /**
   * The page's data (the JSON twin is exactly this), from the panel's data (undefined: the profile
   * has none). Throws an HttpError saying why it cannot answer: never a bare error (a 500).
   */
  answer (data: Static<S> | undefined, context: PanelPageContext): Promise<unknown>
}

/**
 * One panel. `Stored` is what its `record` keeps (and what earlier forms kept); without `record`
 * the data is stored whole. A profile stored whole (seeded, or written before a value moved to the
 * row) must read the same through `fromStored`: a value the stored JSON holds is kept. `Taken` is what its probe
 * takes of each request on the request thread (panels/probe.ts); a panel without a probe reads the
 * capture every panel shares.
 *
 * The functions are methods so that panels of different schemas fit one list (panels/index.ts).
 */
export interface Panel<S extends TSchema = TSchema, Stored = Static<S>, Taken = never> extends PanelDeclaration<S, Stored> {
  readonly perProcess?: false
  /** The request thread's half: what the panel takes of each request, cheaply. */
  readonly probe?: PanelProbe<Taken>
  /**
   * Runs in the writer thread, never on the request thread: no validation here (tests do it).
   * `taken`: what the probe took (undefined: nothing, as for a request the HTTP parser rejected).
   */
  collect (context: CollectContext, taken: Taken | undefined): Static<S>
  /** The row's counts this panel gives (the db panel's queries, the logs panel's warnings), from what its probe took. */
  rowCounts? (taken: Taken | undefined): Partial<PanelRowCounts>
  /**
   * A panel built when it is read: what the writer stores instead of collecting, its own inputs
   * only (what other panels or the row hold is not stored twice: the timeline), as compact as it
   * reads back (values without their keys: performance, db); `fromStored` builds the data from it,
   * the row and the panels read before it. Its `collect` gives the same data in one go.
   */
  record? (context: CollectContext, taken: Taken | undefined): Stored
}

/**
 * A panel whose data is the same for every profile of one process (the environment): collected
 * once per process, stored once (keyed by a hash of its content, beside the other per-process
 * panels: writer/process-panels.ts) and referenced by each profile, not copied into it. Reading
 * a profile puts it back among its panels, so everything that reads panels sees no difference.
 */
export interface ProcessPanel<S extends TSchema = TSchema, Stored = Static<S>> extends PanelDeclaration<S, Stored> {
  readonly perProcess: true
  /** Runs in the writer thread once per process. */
  collect (context: ProcessContext): Static<S>
}

/** What every panel declares, whatever it collects from. */
interface PanelDeclaration<S extends TSchema, Stored> {
  /** The `?panel=` value, the key in the profile's panels, the MCP and CLI panel name. */
  readonly name: string
  /** The label in the profile page's menu. */
  readonly label: string
  /** What `description` says of the panel to MCP clients (get_profile). */
  readonly description: string
  /** `read`: the panels listed before this one, as read back (the timeline builds on db's, logs' and performance's). */
  fromStored? (stored: Stored, row: PanelRowValues, read: ReadPanels): Static<S>
  /** What the partial shows besides the data (human units, the cURL box); none: the data only. */
  view? (data: Static<S>, page: ViewSettings): unknown
  /** Pages of the panel's own (the db panel's Explain); none: the profile page only. */
  readonly pages?: ReadonlyArray<PanelPage<S>>
}

/** Any panel of the index, whatever its schema. */
export type AnyPanel = Panel<TSchema, any, any> | ProcessPanel<TSchema, any>

/** The data the panel's collector gave; undefined when the profile has none (stored before the panel existed). */
export function panelData<S extends TSchema> (profile: { panels: Record<string, unknown> }, panel: Panel<S, any, any> | ProcessPanel<S, any>): Static<S> | undefined {
  // The stored JSON is what this panel's record() wrote (through fromStored): trusted,
  // not validated on reading (test/profiler/panel-schemas.property.test.ts checks the collectors).
  return profile.panels[panel.name] as Static<S> | undefined
}

/** The data type of a declared panel: `PanelData<typeof requestPanel>`. */
export type PanelData<P> = P extends Panel<infer S, any, any> | ProcessPanel<infer S, any> ? Static<S> : never
