// The panels as stored: without the values the profile's own row holds already (method, URL,
// route, status, duration), put back when a profile is read. About 190 of ~930 bytes of JSON per
// profile fewer to write (issue #11: the writer's SQLite work grows with the bytes it stores).
// Each panel says what it leaves out (toStored) and how it reads back (fromStored): panels/.
// Profiles stored whole (before this, or seeded) read the same: a value they hold is kept.
import { panels as declared } from './index.js'
import type { PanelRowValues } from './panel.js'
import { PROCESS_SITES } from './timeline/schema.js'

type Panels = Record<string, unknown>

/** The panels without what the row holds; a panel unknown here is kept as it is. */
export function toStoredPanels (panels: Panels): Panels {
  const stored: Panels = { ...panels }
  for (const panel of declared) {
    if (panel.toStored !== undefined && panel.name in panels) stored[panel.name] = panel.toStored(panels[panel.name])
  }
  return stored
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
