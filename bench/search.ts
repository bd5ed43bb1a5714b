import { parseSearchFilters, type SearchQuery } from '../plugins/profiler/query/search-filters.js'
import type { SearchFilters } from '../plugins/profiler/profile.js'
import { randomSource, seedIp } from './seed.js'
import { percentile, timeCalls } from './stats.js'

export interface SearchCase { name: string, query: SearchQuery }

/** The filters an operator uses, with values that exist in the seeded data (whose last profile is at endMs). */
export function searchCases (endMs: number): SearchCase[] {
  const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 19)
  const windowStart = endMs - 3 * 86_400_000
  return [
    { name: 'latest 10 (no filter)', query: {} },
    { name: 'ip', query: { ip: seedIp(randomSource(1)) } },
    { name: 'method (PATCH, 0.3%)', query: { method: 'PATCH' } },
    { name: 'status (500, 0.2%)', query: { status_code: '500' } },
    { name: 'url substring (rare)', query: { url: '/api/invoices/1234' } },
    { name: 'url substring (common)', query: { url: 'MonitorPooling' } },
    { name: 'url negation', query: { url: '!/monitor/' } },
    { name: 'time range (1 h, 3 days ago)', query: { start: iso(windowStart), end: iso(windowStart + 3_600_000) } },
    { name: 'combination (GET 404 wp-login)', query: { method: 'GET', status_code: '404', url: 'wp-login' } }
  ]
}

export interface Timing { p50: number, p99: number }

function summarize (times: number[]): Timing {
  return { p50: percentile(times, 50), p99: percentile(times, 99) }
}

export async function timeInProcess (store: { search: (filters: SearchFilters) => unknown }, query: SearchQuery, iterations: number): Promise<Timing> {
  return summarize(await timeCalls(iterations, () => store.search(parseSearchFilters(query))))
}

/** The listing page (HTML) as an operator's browser gets it. */
export async function timeOverHttp (url: string, query: SearchQuery, iterations: number): Promise<Timing> {
  const qs = new URLSearchParams({ limit: '10', ...query } as Record<string, string>).toString()
  return summarize(await timeCalls(iterations, async () => {
    const res = await fetch(`${url}/_profiler/empty/search/results?${qs}`, { headers: { accept: 'text/html' } })
    if (res.status !== 200) throw new Error(`listing answered ${res.status}`)
    await res.text()
  }))
}

/** The route statistics page (HTML) over a window: read from the rollups, whatever the store's size. */
export async function timeStatsOverHttp (url: string, window: string, iterations: number): Promise<Timing> {
  return summarize(await timeCalls(iterations, async () => {
    const res = await fetch(`${url}/_profiler/stats?window=${window}`, { headers: { accept: 'text/html' } })
    if (res.status !== 200) throw new Error(`statistics answered ${res.status}`)
    await res.text()
  }))
}

export async function timeStatsInProcess (store: { routeStats: (nowMs: number, windowMs: number) => unknown }, nowMs: number, windowMs: number, iterations: number): Promise<Timing> {
  return summarize(await timeCalls(iterations, () => store.routeStats(nowMs, windowMs)))
}

/** How many requests a statistics answer covers: the HTTP figure ends now, the in-process one at the seed's end. */
export function requestsCovered (answer: unknown): number {
  return (answer as { routes: Array<{ count: number }> }).routes.reduce((sum, line) => sum + line.count, 0)
}

export async function statsOverHttp (url: string, window: string): Promise<unknown> {
  const res = await fetch(`${url}/_profiler/stats?window=${window}`, { headers: { accept: 'application/json' } })
  return await res.json()
}
