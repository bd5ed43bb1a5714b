// Runs in the writer thread: a request thread's capture becomes a stored profile. Redaction, the
// response body's JSON.parse, the panels' collectors and their JSON.stringify all happen here, off
// the request thread (the secrets still never reach the store in clear).
import type { Redactor } from '../../../lib/redact.js'
import type { ProcessPanels, ProfileRecord } from '../profile.js'
import { toStoredPanels } from '../stored-panels.js'
import { profileDuration, type RequestCapture } from './capture.js'
import { panels } from '../panels/index.js'
import type { CollectContext } from '../panels/panel.js'

function parseResponseBody (text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The profile of a captured request: redacted, with every panel's data JSON-encoded; the
 * per-process panels are not collected here but referenced (`process`: collect/process-panels.ts).
 */
export function shapeProfile (capture: RequestCapture, redactor: Redactor, process: ProcessPanels | null = null): ProfileRecord {
  const context: CollectContext = {
    capture,
    url: redactor.url(capture.rawUrl),
    responseBody: parseResponseBody(capture.responseText),
    redactor
  }
  const collected: Record<string, unknown> = {}
  for (const panel of panels) {
    if (panel.perProcess !== true) collected[panel.name] = panel.collect(context)
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
    queryCount: capture.statements?.count ?? 0,
    queryMs: Math.round((capture.statements?.totalMs ?? 0) * 1000) / 1000,
    // Stored without what the row holds (method, URL, status...): the readers put it back.
    panels: JSON.stringify(toStoredPanels(collected)),
    logWarnings: capture.logs?.warnings ?? 0,
    logErrors: capture.logs?.errors ?? 0
  }
  if (process !== null) record.process = process
  return record
}
