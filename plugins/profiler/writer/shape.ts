// Runs in the writer thread: a request thread's capture becomes a stored profile. Redaction, the
// response body's JSON.parse, the panels' collectors and their JSON.stringify all happen here, off
// the request thread (the secrets still never reach the store in clear).
import type { Redactor } from '../../../lib/redact.js'
import type { ProfileRecord } from '../profile.js'
import type { ProcessRecord } from './process-panels.js'
import { PROCESS_SITES } from '../panels/timeline/stored-form-constants.js'
import { storedPanelsText } from '../panels/stored-panels.js'
import { profileDuration, type RequestCapture } from '../capture/capture.js'
import { panels } from '../panels/index.js'
import type { CollectContext, PanelRowCounts } from '../panels/panel.js'
import { probedPanels } from '../panels/probes.js'
import { noRowCounts } from '../row-counts.js'

/** Each probed panel's place in a capture's `taken`. */
const takenAt = new Map<unknown, number>(probedPanels.map((panel, index) => [panel, index]))

function parseResponseBody (text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The profile of a captured request: redacted, with every panel's record JSON-encoded (built into
 * the panel's data when read: stored-panels.ts); the per-process panels are not collected here but
 * referenced (`process`: process-panels.ts). With it, the records (`panels`, not encoded): the OTLP
 * export reads them in the writer thread instead of parsing back the JSON just written.
 */
export function shapeProfile (capture: RequestCapture, redactor: Redactor, process: ProcessRecord | null = null): { record: ProfileRecord, panels: Record<string, unknown> } {
  const collected: Record<string, unknown> = {}
  const context: CollectContext = {
    capture,
    collected: panel => collected[panel.name] as never,
    url: redactor.url(capture.rawUrl),
    responseBody: parseResponseBody(capture.responseText),
    redactor,
    ...(process === null ? {} : { sitePlace: process.sitePlace })
  }
  const counts: PanelRowCounts = noRowCounts()
  for (const panel of panels) {
    if (panel.perProcess === true) continue
    const at = takenAt.get(panel)
    const taken = at === undefined ? undefined : capture.taken?.[at]
    // A panel built when read stores its record (every panel of the index now), the others their data.
    collected[panel.name] = panel.record === undefined ? panel.collect(context, taken) : panel.record(context, taken)
    Object.assign(counts, panel.rowCounts?.(taken))
  }
  const record: ProfileRecord = {
    id: capture.id,
    token: capture.token,
    parentToken: null,
    type: 'request',
    ip: capture.ip,
    method: capture.method,
    url: context.url,
    statusCode: capture.statusCode,
    durationMs: profileDuration(capture.totalMs),
    route: capture.route,
    // Stored without what the row holds (method, URL, status...): the readers put it back.
    panels: storedPanelsText(collected),
    ...counts
  }
  // The request panel holds the whole trace; the row its id, for the search.
  const trace = (collected.request as { trace?: { traceId: string } } | undefined)?.trace
  if (trace !== undefined) record.traceId = trace.traceId
  if (process !== null) {
    // Named after the timeline met its sites: the row holds every site the profile names.
    record.process = process.panels()
    // For the export's reading of the runs; added after the JSON above is written, so never stored with the profile.
    collected[PROCESS_SITES] = process.sites
  }
  return { record, panels: collected }
}
