// A capture holding only what one panel's probe took, in that panel's place of `taken`: for the
// tests of what crosses to the writer thread and what the writer rebuilds from it.
import type { RequestCapture } from '../../plugins/profiler/capture/capture.js'
import type { AnyPanel } from '../../plugins/profiler/panels/panel.js'
import { probedPanels } from '../../plugins/profiler/panels/probes.js'

/** A function making such captures for `panel`: `(token, taken)`. */
export function takenCaptures (panel: AnyPanel): (token: string, taken: unknown) => RequestCapture {
  const at = probedPanels.findIndex(probed => probed === panel)
  if (at === -1) throw new Error(`the ${panel.name} panel has no probe`)
  return (token, taken) => {
    const all = new Array<unknown>(probedPanels.length)
    all[at] = taken
    return { kind: 'capture', token, taken: all } as unknown as RequestCapture
  }
}
