import { STATUS_CODES } from 'node:http'
import { HttpError } from '../../../lib/http-error.js'
import { traceLink } from '../../../lib/trace-context.js'
import { TOKEN_PATTERN } from '../token.js'
import { exceptionPanel } from '../panels/exception.js'
import { panelData } from '../panels/panel.js'
import { requestPanel } from '../panels/request/index.js'
import type { StoredProfile } from '../profile.js'

/** Where profiles are read from: the service's store, or the command line's read-only one (either engine). */
export interface ProfileSource {
  find: (token: string) => Promise<StoredProfile | undefined>
  latest: () => Promise<StoredProfile | undefined>
}

export function tokenNotFound (token: string): HttpError {
  return new HttpError(404, `Token "${token}" not found.`, { name: 'NotFoundHttpError' })
}

/** The profile of a token, or the newest for `latest`; a 404 otherwise (anything not 6 hex is unknown). */
export async function findStoredProfile (source: ProfileSource, token: string): Promise<StoredProfile> {
  const profile = token === 'latest' ? await source.latest() : TOKEN_PATTERN.test(token) ? await source.find(token) : undefined
  if (profile === undefined) throw tokenNotFound(token)
  return profile
}

/** The panel asked for, or the one shown by default (the exception when there was one); a 404 for an unknown panel. */
export function choosePanel (profile: StoredProfile, requested: string | undefined, panelNames: string[]): string {
  const exception = panelData(profile, exceptionPanel)
  const panel = requested ?? (exception === null || exception === undefined ? requestPanel.name : exceptionPanel.name)
  if (!panelNames.includes(panel) || !(panel in profile.panels)) {
    throw new HttpError(404, `Panel "${panel}" is not available for token "${profile.token}".`, { name: 'NotFoundHttpError' })
  }
  return panel
}

/** The profile's trace in the tracing UI (PROFILER_TRACE_URL filled in); null without a URL or a trace id. */
export function profileTraceUrl (profile: StoredProfile, traceUrl: string | null): string | null {
  return traceUrl === null || profile.traceId === null ? null : traceLink(traceUrl, profile.traceId)
}

/**
 * A profile as JSON: the summary, its trace in the tracing UI (`traceUrl`: PROFILER_TRACE_URL filled
 * in, null without one or without a trace id), the panel shown, and every panel (or only the one asked for).
 */
export function profileJson (profile: StoredProfile, panel: string, requested: string | undefined, traceUrl: string | null) {
  const { panels, ...fields } = profile
  return {
    ...fields,
    statusText: STATUS_CODES[profile.status] ?? '',
    traceUrl: profileTraceUrl(profile, traceUrl),
    panel,
    panels: requested === undefined ? panels : { [panel]: panels[panel] }
  }
}
