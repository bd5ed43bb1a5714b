import { curlText, harText } from '../export/export-text.js'
import { findStoredProfile } from '../query/profile-lookup.js'
import type { ReadOnlyStore } from '../engine/open-read-only.js'

export const EXPORT_FORMATS = ['curl', 'har'] as const
export type ExportFormat = typeof EXPORT_FORMATS[number]

/** A profile (`latest`: the newest) exactly as its page answers `/curl` or `/har`; an unknown token is the page's 404. */
export async function exportProfile (reader: ReadOnlyStore, token: string, format: ExportFormat, version: string): Promise<string> {
  const profile = await findStoredProfile(reader, token)
  return format === 'curl' ? curlText(profile) : harText([profile], version)
}
