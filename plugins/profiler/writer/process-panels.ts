// Runs in the writer thread, once per process: the per-process panels (panels/panel.ts,
// ProcessPanel) collected, stored as the other panels are (toStored), and keyed by a hash of
// their JSON. The store keeps each key's row once; every profile of the process names the key.
import { createHash } from 'node:crypto'
import type { Redactor } from '../../../lib/redact.js'
import { panels } from '../panels/index.js'
import type { ProcessContext } from '../panels/panel.js'
import type { ProcessPanels } from '../profile.js'
import type { ProcessFacts } from '../runtime/writer-protocol.js'
import { toStoredPanels } from '../panels/stored-panels.js'

/** 128 bits of SHA-256: the same content, the same key; a different one never meets another's. */
const KEY_HEX_DIGITS = 32

/** The per-process panels' stored JSON and its key; null when no panel is per-process. */
export function collectProcessPanels (facts: ProcessFacts, redactor: Redactor): ProcessPanels | null {
  const context: ProcessContext = { ...facts, redactor }
  const collected: Record<string, unknown> = {}
  for (const panel of panels) {
    if (panel.perProcess === true) collected[panel.name] = panel.collect(context)
  }
  if (Object.keys(collected).length === 0) return null
  const json = JSON.stringify(toStoredPanels(collected))
  return { key: createHash('sha256').update(json).digest('hex').slice(0, KEY_HEX_DIGITS), panels: json }
}
