// A profile's exports exactly as the pages answer them (/curl, /har, /search/har): shared with
// `profiler export` and the MCP tool `export_profile`, so that each gives the same bytes.
import type { StoredProfile } from '../profile.js'
import { panelData } from '../panels/panel.js'
import { requestPanel } from '../panels/request/index.js'
import { curlCommand } from '../panels/request/curl.js'
import { harDocument, noRequestPanel } from './har.js'

/** The curl command line that repeats the request, with a final newline. */
export function curlText (profile: StoredProfile): string {
  const request = panelData(profile, requestPanel) ?? noRequestPanel(profile)
  return `${curlCommand(request).command}\n`
}

/** A HAR 1.2 document of these profiles, indented. */
export function harText (profiles: StoredProfile[], version: string): string {
  return JSON.stringify(harDocument(profiles, version), null, 2)
}
