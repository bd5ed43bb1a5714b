// Runs in the writer thread, once per process: the per-process panels (panels/panel.ts,
// ProcessPanel) collected, stored as their data, and keyed by a hash of
// their JSON. The store keeps each key's row once; every profile of the process names the key.
// The row also holds the hook sites the process's timelines name (PROCESS_SITES), each once, in the
// order the writer met them: a site met later makes a new row (its JSON, so its key, changes), the
// profiles before it still naming the row they were written with. The list only grows, so a place
// means the same site in every row of the process, and the key (its hash) tells processes apart.
import { createHash } from 'node:crypto'
import type { Redactor } from '../../../lib/redact.js'
import { panels } from '../panels/index.js'
import type { ProcessContext } from '../panels/panel.js'
import type { HookSite } from '../panels/timeline/hook-runs.js'
import { PROCESS_SITES } from '../panels/timeline/stored-form-constants.js'
import type { StoredSite } from '../panels/timeline/schema.js'
import type { ProcessPanels } from '../profile.js'
import type { ProcessFacts } from '../runtime/writer-protocol.js'

/** 128 bits of SHA-256: the same content, the same key; a different one never meets another's. */
const KEY_HEX_DIGITS = 32

/** The per-process record of one process: its panels as stored, and the hook sites met so far. */
export class ProcessRecord {
  /** The process's sites, in the order met (the record's PROCESS_SITES). */
  readonly sites: StoredSite[] = []
  private readonly places = new Map<string, number>()
  /** By the site object too: a batch's runs share one object a site (run-slab.ts), so most runs cost one lookup, no key. */
  private readonly placesOf = new WeakMap<HookSite, number>()
  private current: ProcessPanels | null = null

  constructor (private readonly stored: Record<string, unknown>) {}

  /** The place of `site` in the process's sites (added when met for the first time). */
  readonly sitePlace = (site: HookSite): number => {
    const known = this.placesOf.get(site)
    if (known !== undefined) return known
    const key = `${site.hook}\0${site.name}\0${site.plugin}`
    let place = this.places.get(key)
    if (place === undefined) {
      place = this.sites.push([site.hook, site.name, site.plugin]) - 1
      this.places.set(key, place)
      this.current = null
    }
    this.placesOf.set(site, place)
    return place
  }

  /** The row to name now: its JSON (the panels and the sites met so far) and its key. */
  panels (): ProcessPanels {
    if (this.current !== null) return this.current
    const json = JSON.stringify(this.sites.length === 0 ? this.stored : { ...this.stored, [PROCESS_SITES]: this.sites })
    this.current = { key: createHash('sha256').update(json).digest('hex').slice(0, KEY_HEX_DIGITS), panels: json }
    return this.current
  }
}

/** The per-process panels collected, as a record that notes the sites met; null when no panel is per-process. */
export function collectProcessPanels (facts: ProcessFacts, redactor: Redactor): ProcessRecord | null {
  const context: ProcessContext = { ...facts, redactor }
  const collected: Record<string, unknown> = {}
  for (const panel of panels) {
    if (panel.perProcess === true) collected[panel.name] = panel.collect(context)
  }
  if (Object.keys(collected).length === 0) return null
  return new ProcessRecord(collected)
}
