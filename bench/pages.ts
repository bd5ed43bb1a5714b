// Issue 20: do the profiler's costliest pages starve the business routes? A store seeded like
// scanner traffic (distinct 200-character URLs), the status poll measured alone, then beside 8
// clients looping on the costliest URL search, then beside 8 on the largest HAR export.
import autocannon from 'autocannon'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { startBenchServer } from './server-process.js'
import { UNBOUNDED_RETENTION_ENV } from './stores.js'
import { round } from './stats.js'

/** Its last trigrams ("ip=", "127") are in every scanner URL and it matches none: a walk of them all. */
export const COSTLY_SEARCH = '/_profiler/empty/search/results?url=NOPE/results%3Fip%3D127&limit=100'
export const LARGE_HAR = '/_profiler/empty/search/har?limit=100'
const PAGE_CLIENTS = 8
const POLL_CONNECTIONS = 2

interface Run { requestsPerSecond: number, p99: number, non2xx: number, errors: number }
export interface PagesResult { profiles: number, pollAlone: Run, besideSearch: Run & { ratio: number, pages: Run }, besideHar: Run & { ratio: number, pages: Run } }

const scannerPath = (n: number): string => `/scan/${n.toString(36).padStart(8, '0')}/${'results?ip=127.0.0.1&q='.padEnd(185, 'x')}`

async function run (options: autocannon.Options): Promise<Run> {
  const result = await autocannon(options)
  return { requestsPerSecond: round(result.requests.average, 0), p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts }
}

const poll = (url: string, seconds: number): Promise<Run> => run({
  url: `${url}/monitor/MonitorPooling`, connections: POLL_CONNECTIONS, duration: seconds, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}'
})

const pages = (url: string, path: string, seconds: number): Promise<Run> => run({
  url: `${url}${path}`, connections: PAGE_CLIENTS, duration: seconds, headers: { accept: 'application/json' }
})

/** Seeds `profiles` scanner requests into a fresh store in `dir`, then measures the poll alone and beside each page. */
export async function measurePages (dir: string, profiles: number, seconds: number): Promise<PagesResult> {
  const path = join(dir, 'pages-profiler.sqlite')
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  const server = await startBenchServer({
    PROFILER: 'on',
    DATABASE_PATH: join(dir, 'app.sqlite'),
    PROFILER_DATABASE_PATH: path,
    ...UNBOUNDED_RETENTION_ENV
  })
  try {
    let n = 0
    await autocannon({ url: server.url, connections: 8, amount: profiles, requests: [{ setupRequest: request => ({ ...request, method: 'GET', path: scannerPath(n++) }) }] })
    // Stored once the writer has caught up: the newest scanner URL is found.
    const newest = `/_profiler/empty/search/results?limit=1&url=${encodeURIComponent(scannerPath(profiles - 1).slice(0, 15))}`
    for (let i = 0; i < 600; i++) {
      const answer = await (await fetch(`${server.url}${newest}`, { headers: { accept: 'application/json' } })).json() as { results: unknown[] }
      if (answer.results.length > 0) break
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    const pollAlone = await poll(server.url, seconds)
    const beside = async (page: string) => {
      const [polled, paged] = await Promise.all([poll(server.url, seconds), pages(server.url, page, seconds)])
      return { ...polled, ratio: round(polled.requestsPerSecond / pollAlone.requestsPerSecond, 2), pages: paged }
    }
    const besideSearch = await beside(COSTLY_SEARCH)
    const besideHar = await beside(LARGE_HAR)
    return { profiles, pollAlone, besideSearch, besideHar }
  } finally {
    await server.stop()
  }
}
