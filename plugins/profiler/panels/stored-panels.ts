// The panels as stored: each panel's record (what its `record` keeps of a request: panels/), without
// the values the profile's own row holds already (method, URL, route, status, duration, query count
// and time), built into the panel's data when a profile is read (fromStored). Since 29 November 2026
// a profile's records are one JSON array in the order of STORED_ORDER, after the form's number, with
// neither the panels' names nor (for the performance and db panels) their keys; before, an object by
// panel name, each panel's data without the row's values: both read the same (parseStoredPanels).
// Profiles stored whole (seeded) read the same too: a value they hold is kept.
import { panels as declared } from './index.js'
import type { PanelRowValues } from './panel.js'
import { PROCESS_SITES } from './timeline/stored-form-constants.js'

type Panels = Record<string, unknown>

/** The form of the array: its first value. */
const ARRAY_FORM = 1
/** The panels of ARRAY_FORM, in its order (the index's, per-process panels apart: they have a row of their own). A panel added later makes a new form. */
const STORED_ORDER = ['request', 'performance', 'exception', 'router', 'db', 'logs', 'timeline'] as const

/** A profile's panel records as stored (`records` by panel name: shape.ts); a panel missing is stored as null. */
export function storedPanelsText (records: Panels): string {
  const values: unknown[] = [ARRAY_FORM]
  for (const name of STORED_ORDER) values.push(records[name] ?? null)
  return JSON.stringify(values)
}

/** A profile's stored panels text as an object by panel name, whatever its form. */
export function parseStoredPanels (text: string): Panels {
  const parsed = JSON.parse(text) as unknown
  if (!Array.isArray(parsed)) return parsed as Panels
  if (parsed[0] !== ARRAY_FORM) throw new Error(`panels stored in an unknown form (${String(parsed[0])}): written by a newer release`)
  const panels: Panels = {}
  STORED_ORDER.forEach((name, at) => { panels[name] = parsed[at + 1] })
  return panels
}

/**
 * The panels as they were shown when recorded: the row's values put back where they were, and a
 * panel built when read (the timeline) built from its stored inputs and the panels before it; the
 * process's hook sites (an input, not a panel) dropped.
 */
export function fromStoredPanels (stored: Panels, row: PanelRowValues): Panels {
  const panels: Panels = { ...stored }
  for (const panel of declared) {
    if (panel.fromStored !== undefined && panel.name in stored) panels[panel.name] = panel.fromStored(stored[panel.name], row, panels)
  }
  delete panels[PROCESS_SITES]
  return panels
}
