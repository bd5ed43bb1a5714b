import autocannon from 'autocannon'
import { randomSource } from './seed.js'

export type Mix = 'seed-like' | 'unknown-paths'

export interface LoadResult { requestsPerSecond: number, p50: number, p99: number, requests: number, errors: number, non2xx: number }

/** A request of the mix: (a) 80% status polls, 15% advisor lookups, 5% unknown paths; (b) only unknown paths. */
export function mixRequest (mix: Mix, random: () => number): { method: 'GET' | 'POST', path: string, body?: string } {
  const unknown = (): { method: 'GET', path: string } => ({ method: 'GET', path: `/probe/${Math.floor(random() * 1e9).toString(36)}/${Math.floor(random() * 1e6)}.php` })
  if (mix === 'unknown-paths') return unknown()
  const r = random()
  if (r < 0.8) return { method: 'POST', path: '/monitor/MonitorPooling', body: random() < 0.5 ? '{}' : `{"code":"ADV${1001 + Math.floor(random() * 36)}"}` }
  if (r < 0.95) return { method: 'POST', path: '/ccenter/getConseillerByCode', body: `{"code":"ADV${1001 + Math.floor(random() * 40)}"}` }
  return unknown()
}

/** Drives the server with autocannon (20 connections) for `seconds`, or at a fixed overall rate. */
export async function runLoad (url: string, mix: Mix, options: { seconds?: number, amount?: number, rate?: number, seed?: number }): Promise<LoadResult> {
  const random = randomSource(options.seed ?? 7)
  const result = await autocannon({
    url,
    connections: 20,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds ?? 10 }),
    ...(options.rate !== undefined ? { overallRate: options.rate } : {}),
    headers: { 'content-type': 'application/json' },
    requests: [{
      // autocannon derives Content-Length from the body and keeps the previous one when a request
      // has none: a body-less GET after a POST would desynchronise the connection. So every request
      // has a body; the GETs' one byte is never read (unknown paths are answered before the body).
      setupRequest: request => {
        const next = mixRequest(mix, random)
        return { ...request, method: next.method, path: next.path, body: next.body ?? ' ' }
      }
    }]
  })
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx
  }
}
