import { harText } from '../export/export-text.js'
import type { SearchFilters } from '../profile.js'
import type { StoreReader } from './contract.js'

/**
 * The HAR document of a search's profiles, read through the reader's own search and find (each
 * engine's searchHar: SQLite's runs in its reader thread, off the request thread). A profile pruned
 * between the search and its read is left out.
 */
export async function searchHarOf (reader: Pick<StoreReader, 'search' | 'find'>, filters: SearchFilters, version: string): Promise<string> {
  const summaries = await reader.search(filters)
  const profiles = await Promise.all(summaries.map(async summary => await reader.find(summary.token)))
  return harText(profiles.filter(profile => profile !== undefined), version)
}
