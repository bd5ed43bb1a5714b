import { STATUS_CODES } from 'node:http'
import { HttpError } from '../../../lib/http-error.js'
import { TOKEN_PATTERN } from '../collect/token.js'
import type { StoredProfile } from '../profile.js'

/** Where profiles are read from: the command line's read-only store (synchronous SQLite). */
export interface ProfileSource {
  find: (token: string) => StoredProfile | undefined
  latest: () => StoredProfile | undefined
}

/** The service's store, whichever engine: the same reads, answered asynchronously. */
interface AsyncProfileSource {
  find: (token: string) => Promise<StoredProfile | undefined>
  latest: () => Promise<StoredProfile | undefined>
}

export function tokenNotFound (token: string): HttpError {
  return new HttpError(404, `Token "${token}" not found.`, { name: 'NotFoundHttpError' })
}

/** The read a token asks for: the newest for `latest`, one profile for 6 hex, nothing otherwise. */
function read<T> (source: { find: (token: string) => T, latest: () => T }, token: string): T | undefined {
  if (token === 'latest') return source.latest()
  if (TOKEN_PATTERN.test(token)) return source.find(token)
  return undefined
}

function found (token: string, profile: StoredProfile | undefined): StoredProfile {
  if (profile === undefined) throw tokenNotFound(token)
  return profile
}

/** The profile of a token, or the newest for `latest`; a 404 otherwise (anything not 6 hex is unknown). */
export function findProfile (source: ProfileSource, token: string): StoredProfile {
  return found(token, read(source, token))
}

/** findProfile on the service's (asynchronous) store. */
export async function findStoredProfile (source: AsyncProfileSource, token: string): Promise<StoredProfile> {
  return found(token, await read(source, token))
}

/** The panel asked for, or the one shown by default (the exception when there was one); a 404 for an unknown panel. */
export function choosePanel (profile: StoredProfile, requested: string | undefined, panelNames: string[]): string {
  const panel = requested ?? (profile.panels.exception === null || profile.panels.exception === undefined ? 'request' : 'exception')
  if (!panelNames.includes(panel) || !(panel in profile.panels)) {
    throw new HttpError(404, `Panel "${panel}" is not available for token "${profile.token}".`, { name: 'NotFoundHttpError' })
  }
  return panel
}

/** A profile as JSON: the summary, the panel shown, and every panel (or only the one asked for). */
export function profileJson (profile: StoredProfile, panel: string, requested: string | undefined) {
  const { panels, ...fields } = profile
  return { ...fields, statusText: STATUS_CODES[profile.status] ?? '', panel, panels: requested === undefined ? panels : { [panel]: panels[panel] } }
}
