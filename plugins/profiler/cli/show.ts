import { PANEL_NAMES } from '../panels/index.js'
import { choosePanel, findStoredProfile, profileJson } from '../query/profile-lookup.js'
import type { StoredProfile } from '../profile.js'
import type { ReadOnlyStore } from '../engine/open-read-only.js'

/** A profile (`latest`: the newest) and the panel to show: the one asked for, or the page's default. */
export async function showProfile (reader: ReadOnlyStore, token: string, requested: string | undefined, traceUrl: string | null): Promise<{ profile: StoredProfile, panel: string, json: ReturnType<typeof profileJson> }> {
  const profile = await findStoredProfile(reader, token)
  const panel = choosePanel(profile, requested, PANEL_NAMES)
  return { profile, panel, json: profileJson(profile, panel, requested, traceUrl) }
}

/** The summary with the panels asked for (each checked as on the page), or the default one. */
export async function profileWithPanels (reader: ReadOnlyStore, token: string, panels: string[] | undefined, traceUrl: string | null) {
  const profile = await findStoredProfile(reader, token)
  const chosen = panels === undefined || panels.length === 0 ? [choosePanel(profile, undefined, PANEL_NAMES)] : panels.map(name => choosePanel(profile, name, PANEL_NAMES))
  const { panels: all, ...json } = profileJson(profile, chosen[0] ?? 'request', undefined, traceUrl)
  return { ...json, panels: Object.fromEntries(chosen.map(name => [name, all[name]])) }
}
