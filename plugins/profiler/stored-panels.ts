// The panels as stored: without the values the profile's own row holds already (method, URL,
// route, status, duration), put back when a profile is read. About 190 of ~930 bytes of JSON per
// profile fewer to write (issue #11: the writer's SQLite work grows with the bytes it stores).
// Profiles stored whole (before this, or seeded) read the same: a value they hold is kept.
import { STATUS_CODES } from 'node:http'

type Panel = Record<string, unknown>

/** What a profile's row holds of its panels' values. */
export interface PanelRowValues { method: string, url: string, route: string | null, status: number, durationMs: number }

const isPanel = (value: unknown): value is Panel => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The panels without what the row holds (the shapes of collect/collectors/*.ts). */
export function toStoredPanels (panels: Panel): Panel {
  const { request, performance, exception, router } = panels
  const stored: Panel = { ...panels }
  if (isPanel(request) && isPanel(request.response)) {
    const { method: _method, url: _url, route: _route, ...kept } = request
    const { statusCode: _statusCode, statusText: _statusText, ...response } = request.response
    stored.request = { ...kept, response }
  }
  if (isPanel(performance)) {
    const { totalMs: _totalMs, ...kept } = performance
    stored.performance = kept
  }
  if (isPanel(exception)) {
    const { statusCode: _statusCode, statusText: _statusText, ...kept } = exception
    stored.exception = kept
  }
  if (isPanel(router) && isPanel(router.matched)) {
    const { route: _route, ...kept } = router.matched
    stored.router = { ...router, matched: kept }
  }
  return stored
}

/** The panels as they were shown when recorded: the row's values put back where they were. */
export function fromStoredPanels (stored: Panel, row: PanelRowValues): Panel {
  const { request, performance, exception, router } = stored
  const panels: Panel = { ...stored }
  const statusText = STATUS_CODES[row.status] ?? ''
  if (isPanel(request) && isPanel(request.response)) {
    panels.request = {
      method: row.method,
      url: row.url,
      route: row.route,
      ...request,
      response: { statusCode: row.status, statusText, ...request.response }
    }
  }
  if (isPanel(performance)) panels.performance = { totalMs: row.durationMs, ...performance }
  if (isPanel(exception)) {
    const { name, ...rest } = exception
    panels.exception = { name, statusCode: row.status, statusText, ...rest }
  }
  if (isPanel(router) && isPanel(router.matched)) panels.router = { ...router, matched: { route: row.route, ...router.matched } }
  return panels
}
