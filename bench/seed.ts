// Realistic profiles for the benchmarks: varied URLs, 5,000 client IPs, a method and status mix
// like a real API, times spread over days; written through the store's own batch writer.
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../plugins/profiler/profile.js'
import type { WriteResult } from '../plugins/profiler/engine/contract.js'
import type { exceptionPanel } from '../plugins/profiler/panels/exception.js'
import type { PanelData } from '../plugins/profiler/panels/panel.js'
import type { performancePanel } from '../plugins/profiler/panels/performance.js'
import type { requestPanel } from '../plugins/profiler/panels/request/index.js'
import type { routerPanel } from '../plugins/profiler/panels/router.js'

/** A small seeded PRNG (mulberry32): the same data on every run. */
export function randomSource (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function pick<T> (random: () => number, weighted: Array<[T, number]>): T {
  let r = random() * weighted.reduce((sum, [, weight]) => sum + weight, 0)
  for (const [value, weight] of weighted) {
    r -= weight
    if (r <= 0) return value
  }
  return weighted[weighted.length - 1]?.[0] as T
}

const WORDS = ['orders', 'customers', 'invoices', 'tickets', 'agents', 'queues', 'calls', 'reports', 'teams', 'skills', 'shifts', 'campaigns']
const PROBES = ['/wp-login.php', '/.env', '/robots.txt', '/css/styles.css', '/favicon.ico', '/admin/config.php', '/.git/config', '/xmlrpc.php']

export function seedIp (random: () => number): string {
  const n = Math.floor(random() * 5000)
  return `10.${(n >> 8) & 255}.${n & 255}.${(n * 7) % 250 + 1}`
}

/** `route`: the pattern a router would match (bounded by the route table), null when none matched. */
interface SeedProfile { method: string, path: string, route: string | null, status: number, ip: string }

/** One request as a busy contact-centre API sees it. */
function seedRequest (random: () => number): SeedProfile {
  const ip = seedIp(random)
  const kind = pick(random, [['poll', 60], ['lookup', 15], ['api', 20], ['probe', 5]] as Array<[string, number]>)
  if (kind === 'poll') return { method: 'POST', path: '/monitor/MonitorPooling', route: '/monitor/MonitorPooling', status: pick(random, [[200, 97], [503, 1], [404, 2]]), ip }
  if (kind === 'lookup') return { method: 'POST', path: '/ccenter/getConseillerByCode', route: '/ccenter/getConseillerByCode', status: pick(random, [[200, 85], [404, 12], [400, 3]]), ip }
  if (kind === 'probe') {
    const probe = PROBES[Math.floor(random() * PROBES.length)] ?? '/'
    return { method: pick(random, [['GET', 90], ['HEAD', 5], ['POST', 5]]), path: `${probe}${random() < 0.5 ? `?v=${Math.floor(random() * 1000)}` : ''}`, route: null, status: 404, ip }
  }
  const word = WORDS[Math.floor(random() * WORDS.length)] ?? 'orders'
  const id = Math.floor(random() * 200_000)
  const status = pick(random, [[200, 88], [404, 6], [301, 2], [400, 2], [405, 1], [500, 1]])
  return {
    method: pick(random, [['GET', 80], ['POST', 10], ['PUT', 5], ['DELETE', 3.5], ['PATCH', 1.5]]),
    path: `/api/${word}/${id}${random() < 0.4 ? `?page=${Math.floor(random() * 20)}` : ''}`,
    route: status === 404 ? null : `/api/${word}/:id`,
    status,
    ip
  }
}

/** The panels a profile holds, as the panels declare them (panels/): the seed follows their schemas. */
interface SeedPanels {
  request: PanelData<typeof requestPanel>
  performance: PanelData<typeof performancePanel>
  exception: PanelData<typeof exceptionPanel>
  router: PanelData<typeof routerPanel>
}

/** Panel data shaped and sized like what the collectors store for such a request (whole: the readers take both forms). */
function seedPanels (request: SeedProfile, url: string, token: string, durationMs: number): string {
  const error = request.status >= 400
  const panels: SeedPanels = {
    request: {
      method: request.method,
      url,
      route: request.route,
      params: {},
      query: {},
      body: request.method === 'POST' ? { code: `ADV${1000 + (token.charCodeAt(0) % 36)}` } : null,
      requestHeaders: { host: 'api.example.test:8000', 'user-agent': 'contact-desk/4.2 (+https://example.test)', accept: 'application/json', 'content-type': 'application/json', 'content-length': '18', 'x-request-id': token + token },
      response: {
        statusCode: request.status,
        statusText: error ? 'Not Found' : 'OK',
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-debug-token': token, 'x-debug-token-link': `http://api.example.test:8000/_profiler/${token}`, 'content-length': '112' },
        body: error ? { statusCode: request.status, error: 'Not Found', message: `No route found for "${request.method} ${url}"` } : { status: 'ok', time: '2026-11-22T02:32:31.369Z', uptimeSeconds: 3600, version: '0.1.0', checks: { database: 'ok' } }
      }
    },
    performance: { totalMs: durationMs, beforeHandlerMs: 0.2, handlerMs: durationMs / 2, sendingMs: durationMs / 3, heapUsedBytes: 25_302_536, droppedProfiles: 0 },
    exception: error ? { name: 'NotFoundHttpError', statusCode: request.status, statusText: 'Not Found', message: `No route found for "${request.method} ${url}"`, chain: [{ name: 'NotFoundHttpError', message: `No route found for "${request.method} ${url}"` }, { name: 'ResourceNotFoundError', message: `No routes found for "${request.path}/".` }] } : null,
    router: error ? { matched: null, failure: { outcome: 'not-found', method: request.method, path: request.path, twinPath: `${request.path}/`, allowedMethods: [] } } : { matched: { route: request.route, method: request.method }, failure: null }
  }
  return JSON.stringify(panels)
}

/**
 * Writes `count` profiles spread evenly over the `spanMs` before `endMs`, in batches of 1,000
 * through the store's writer; returns the profiles written per second (writing time only).
 */
export interface SeedOptions { seed?: number, endMs?: number, spanMs?: number, firstToken?: number }

/** Either engine's writer (SQLite answers at once, PostgreSQL asynchronously). */
interface BatchWriter { write: (batch: ProfileRecord[]) => WriteResult | Promise<WriteResult> }

export async function seedProfiles (writer: BatchWriter, count: number, options: SeedOptions = {}): Promise<number> {
  const random = randomSource(options.seed ?? 42)
  const endMs = options.endMs ?? Date.now()
  const spanMs = options.spanMs ?? 5 * 86_400_000
  const stepMs = spanMs / count
  let writingNs = 0n
  let batch: ProfileRecord[] = []
  for (let i = 0; i < count; i++) {
    const request = seedRequest(random)
    const startMs = endMs - spanMs + i * stepMs
    // Distinct tokens spread over the whole space: an odd multiplier permutes 24-bit numbers.
    const token = (Math.imul(i + (options.firstToken ?? 0), 0x9e3779b1) >>> 0 & 0xffffff).toString(16).padStart(6, '0')
    const url = `http://api.example.test:8000${request.path}`
    const durationMs = Math.round(random() * 30_000) / 1000
    batch.push({
      id: Math.floor(startMs) * ID_SLOTS_PER_MS + (i % ID_SLOTS_PER_MS),
      token,
      parentToken: null,
      type: 'request',
      ip: request.ip,
      method: request.method,
      url,
      statusCode: request.status,
      durationMs,
      route: request.route,
      panels: seedPanels(request, url, token, durationMs)
    })
    if (batch.length === 1000 || i === count - 1) {
      const started = process.hrtime.bigint()
      const { rejected } = await writer.write(batch)
      writingNs += process.hrtime.bigint() - started
      if (rejected.length > 0) throw new Error(`seed: ${rejected.length} profiles were not stored`)
      batch = []
    }
  }
  return count / (Number(writingNs) / 1e9)
}
