// npm run bench [-- --quick] [-- --only=cpu,search] [-- --cpu-prof] [-- --store=postgres]: profiler
// overhead, CPU per request and thread (--only=cpu also against a build of the revision before the
// db and logs panels, or --baseline=<rev>), the cost of sampling against request logging
// (--only=sampling), search and route statistics at 10k and 1M profiles, the
// store's write rate and size, memory over many profiled requests, and what a test process pays
// (--only=panels: issue 23's before and after alone, on empty stores, then in process with the bytes allocated; --only=suite, the one section that needs no seeded store). Prints a table and writes
// bench/results.json (results-postgres.json for --store=postgres, against a cluster it starts
// itself under var/bench/postgres). Every figure is also given as a ratio against a baseline of the
// same run. --only=pages: the status poll beside clients looping on the costliest profiler pages. --only=burst: issue 20's scanner bursts into a byte-bounded store. --smoke: tiny sizes and runs, only to check that the benchmark itself works.
// --only=recording: issue 38's table (off, logging, OpenTelemetry, the profiler at 1 and 0.01; PostgreSQL's server CPU counted).
// --only=otlp: issue 39's OTLP export beside @fastify/otel with a batched OTLP exporter, against the profiler without export.
// --only=hooks: the timeline's hook timing alone, a timed app against an untimed one in one process.
// --seconds=<n> and --rounds=<n> set the measured seconds of each load run and the interleaved rounds.
// A run that writes results also rewrites docs/performance.md and the README's table from them;
// --doc (npm run bench:doc) only does that, from the committed results, measuring nothing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join, relative } from 'node:path'
import { packageRoot } from '../paths.js'
import { measureCpu } from './cpu.js'
import { BEFORE_PANELS, measureBeforeAfter } from './cpu-before-after.js'
import { measureSampling } from './cpu-sampling.js'
import { measureOtlpCost } from './cpu-otlp.js'
import { measureRecordingCost } from './cpu-recording.js'
import { measureHookTiming } from './hook-timing.js'
import { measurePanelsInProcess } from './in-process.js'
import { writeBenchDocs } from './performance-doc-files.js'
import { runLoad, type LoadResult, type Mix } from './load.js'
import { requestsCovered, searchCases, statsOverHttp, timeInProcess, timeOverHttp, timeStatsInProcess, timeStatsOverHttp, type Timing } from './search.js'
import { startBenchServer } from './server-process.js'
import { COSTLY_SEARCH, LARGE_HAR, measurePages } from './pages.js'
import { measureScannerBurst } from './scanner-burst.js'
import { measureAppBuilds, measureModuleLoading, measurePollClient } from './suite-costs.js'
import { median, round } from './stats.js'
import { postgresStore, sqliteStore, UNBOUNDED_RETENTION_ENV, type BenchStore } from './stores.js'

if (process.argv.includes('--doc')) {
  for (const path of writeBenchDocs(packageRoot)) process.stdout.write(`written: ${path}\n`)
  process.exit(0)
}
const quick = process.argv.includes('--quick')
const smoke = process.argv.includes('--smoke')
const storeName = process.argv.find(arg => arg.startsWith('--store='))?.slice('--store='.length) ?? 'sqlite'
if (storeName !== 'sqlite' && storeName !== 'postgres') throw new Error(`--store must be sqlite or postgres (got ${storeName})`)
const option = (name: string): string | undefined => process.argv.find(arg => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
const count = (name: string): number | undefined => {
  const value = option(name)
  if (value === undefined) return undefined
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`--${name} must be a whole number above 0 (got ${value})`)
  return Number(value)
}
const SIZES = smoke ? { small: 1_000, large: 5_000 } : { small: 10_000, large: quick ? 100_000 : 1_000_000 }
const SECONDS = count('seconds') ?? (smoke ? 1 : quick ? 3 : 10)
const WARMUP_SECONDS = smoke ? 1 : quick ? 1 : 2
const ROUNDS = count('rounds') ?? (smoke ? 1 : 3)
const BASELINE_REVISION = option('baseline') ?? BEFORE_PANELS
const RSS_REQUESTS = smoke ? 2_000 : quick ? 100_000 : 1_000_000
const SEARCH_ITERATIONS = smoke ? 5 : quick ? 50 : 200
const CPU_RATE = 2000
const HTTP_ITERATIONS = smoke ? 5 : quick ? 30 : 100
const SEED_END_MS = Date.UTC(2026, 10, 20, 12)
const DATA = join(packageRoot, 'var', 'bench')
// Bounds far above the seeded data: the throughput runs measure recording, not a mass prune.

mkdirSync(DATA, { recursive: true })
const store: BenchStore = storeName === 'postgres' ? await postgresStore(DATA) : sqliteStore(DATA)
const results: Record<string, unknown> = {}
const log = (line: string): void => { process.stdout.write(`${line}\n`) }

async function measureStore (): Promise<void> {
  log(`\n## Store (${store.name}): write rate, size`)
  const small = await store.seeded(SIZES.small, { endMs: SEED_END_MS })
  await store.seeded(SIZES.large, { endMs: SEED_END_MS })
  // The write rate into a store that is already large: 50,000 more profiles into a copy.
  const intoLarge = await store.writeRateInto(SIZES.large, smoke ? 1_000 : 50_000, { seed: 9, endMs: SEED_END_MS + 3_600_000, spanMs: 3_600_000, firstToken: SIZES.large })
  const bytesPerProfile = await store.bytes(SIZES.large) / SIZES.large
  results.store = {
    writesPerSecondIntoEmpty: small.writesPerSecond === null ? null : round(small.writesPerSecond, 0),
    writesPerSecondIntoLarge: round(intoLarge, 0),
    largeStoreProfiles: SIZES.large,
    bytesOnDiskPerProfile: round(bytesPerProfile, 0)
  }
  log(`writes/s into an empty store: ${small.writesPerSecond === null ? '(store reused)' : Math.round(small.writesPerSecond)}; into a ${SIZES.large.toLocaleString('en')}-profile store: ${Math.round(intoLarge)}`)
  log(`bytes on disk per profile at ${SIZES.large.toLocaleString('en')}: ${Math.round(bytesPerProfile)}`)
}

async function loadRun (mix: Mix, profiler: boolean, storeEnv: Record<string, string>, extra: { rate?: number } = {}): Promise<LoadResult> {
  const server = await startBenchServer({
    PROFILER: profiler ? 'on' : 'off',
    DATABASE_PATH: join(DATA, 'app.sqlite'),
    ...storeEnv,
    ...UNBOUNDED_RETENTION_ENV
  })
  try {
    await runLoad(server.url, mix, { seconds: WARMUP_SECONDS, ...extra })
    return await runLoad(server.url, mix, { seconds: SECONDS, ...extra })
  } finally {
    await server.stop()
  }
}

async function measureThroughput (): Promise<void> {
  log(`\n## Throughput and latency (autocannon, 20 connections, ${SECONDS} s, store pre-seeded to ${SIZES.large.toLocaleString('en')} profiles)`)
  const throughput: Record<string, unknown> = {}
  for (const mix of ['seed-like', 'unknown-paths'] as Mix[]) {
    const run = await store.runStore(SIZES.large)
    const runStore = run.env
    const rounds: Array<{ off: number, on: number, ratio: number }> = []
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which goes first, so that neither always runs on a warmer machine.
      const order = i % 2 === 0 ? [false, true] : [true, false]
      const byMode: Record<string, LoadResult> = {}
      for (const profiler of order) byMode[profiler ? 'on' : 'off'] = await loadRun(mix, profiler, runStore)
      const off = byMode.off?.requestsPerSecond ?? 0
      const on = byMode.on?.requestsPerSecond ?? 0
      rounds.push({ off: round(off, 0), on: round(on, 0), ratio: round(on / off, 3) })
      log(`${mix} round ${i + 1}: off ${Math.round(off)} req/s, on ${Math.round(on)} req/s, on/off ${(on / off).toFixed(3)}`)
    }
    const offMax = median(rounds.map(r => r.off))
    const rate = Math.round(offMax / 2)
    const latencyOff = await loadRun(mix, false, runStore, { rate })
    const latencyOn = await loadRun(mix, true, runStore, { rate })
    log(`${mix} at ${rate} req/s: p50/p99 off ${latencyOff.p50}/${latencyOff.p99} ms, on ${latencyOn.p50}/${latencyOn.p99} ms`)
    throughput[mix] = {
      rounds,
      medianRatio: median(rounds.map(r => r.ratio)),
      fixedRate: rate,
      latencyMs: { off: { p50: latencyOff.p50, p99: latencyOff.p99 }, on: { p50: latencyOn.p50, p99: latencyOn.p99 }, p99DeltaMs: round(latencyOn.p99 - latencyOff.p99, 2) }
    }
    await run.remove()
  }
  results.throughput = throughput
}

async function measureCpuPerRequest (): Promise<void> {
  log('\n## CPU per request, per thread: the profiler against request logging')
  results.cpu = await measureCpu({
    dataDir: DATA,
    runStore: async size => await store.runStore(size),
    largeSize: SIZES.large,
    largeLabel: `${SIZES.large.toLocaleString('en')}-profile`,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    rounds: ROUNDS,
    rate: CPU_RATE,
    cpuProf: process.argv.includes('--cpu-prof'),
    log,
    env: UNBOUNDED_RETENTION_ENV
  })
}

async function measurePanelsCost (): Promise<void> {
  log(`\n## Issue 23: CPU per request before and after the panels (${BASELINE_REVISION} against this build)`)
  results.cpuBeforeAfter = await measureBeforeAfter({ ...cpuRunSettings(), revision: BASELINE_REVISION })
  log(`\n## Issue 23 in process: the main thread's CPU and the bytes allocated a request (${BASELINE_REVISION} against this build)`)
  results.panelsInProcess = await measurePanelsInProcess({ revision: BASELINE_REVISION, rounds: ROUNDS, requests: smoke ? 2000 : 30_000, log })
}

async function measureHookTimingCost (): Promise<void> {
  log('\n## Issue 23: the timeline\'s hook timing alone (the same hooks timed and untimed, in one process)')
  results.hookTiming = await measureHookTiming({ rounds: smoke ? 1 : Math.max(ROUNDS, 7), requests: smoke ? 500 : 3000, log })
}

/** What the before/after and sampling sections share: the store, the durations, the rate, the log. */
function cpuRunSettings () {
  return {
    dataDir: DATA,
    runStore: async (size: number) => await store.runStore(size),
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    rounds: ROUNDS,
    rate: CPU_RATE,
    log,
    env: UNBOUNDED_RETENTION_ENV
  }
}

async function measureSamplingCost (): Promise<void> {
  log('\n## Issue 24: CPU per request at PROFILER_SAMPLE=1, 0.1, 0.01 against request logging')
  results.sampling = await measureSampling(cpuRunSettings())
}

async function measureOtlpExportCost (): Promise<void> {
  log('\n## Issue 39: CPU per request of the OTLP export against @fastify/otel with a batched OTLP exporter')
  results.otlp = await measureOtlpCost(cpuRunSettings())
}

async function measureRecording (): Promise<void> {
  log(`\n## Issue 38: every request recorded against request logging and OpenTelemetry tracing (${store.name} store)`)
  results.recording = await measureRecordingCost({ ...cpuRunSettings(), databaseCpuMs: store.serverCpuMs, storeName: store.name })
}

async function measureSearch (): Promise<void> {
  log(`\n## Search (p50/p99 ms; ${SEARCH_ITERATIONS} calls in-process, ${HTTP_ITERATIONS} listing pages over HTTP)`)
  const cases = searchCases(SEED_END_MS)
  const timings: Record<string, Record<string, { inProcess: Timing, http: Timing }>> = {}
  const statsCoverage: Record<string, { inProcess: number, http: number }> = {}
  for (const [label, size] of [['small', SIZES.small], ['large', SIZES.large]] as const) {
    const { env } = await store.seeded(size, { endMs: SEED_END_MS })
    const searcher = await store.searcher(size)
    const server = await startBenchServer({ PROFILER: 'on', DATABASE_PATH: join(DATA, 'app.sqlite'), ...env, ...UNBOUNDED_RETENTION_ENV })
    const bySize: Record<string, { inProcess: Timing, http: Timing }> = {}
    try {
      for (const { name, query } of cases) {
        bySize[name] = { inProcess: await timeInProcess(searcher, query, SEARCH_ITERATIONS), http: await timeOverHttp(server.url, query, HTTP_ITERATIONS) }
      }
      // The seeded profiles end at SEED_END_MS: the 7-day window of the page (which ends now) holds
      // them only within 2 days of it, so the in-process figure reads the window ending there.
      bySize['route statistics (7d)'] = {
        inProcess: await timeStatsInProcess(searcher, SEED_END_MS, 7 * 86_400_000, SEARCH_ITERATIONS),
        http: await timeStatsOverHttp(server.url, '7d', HTTP_ITERATIONS)
      }
      // Seeded stores are kept between runs: days after seeding, the page's window (ending now)
      // holds fewer of their profiles, and its figure means less. Said with each run.
      const covered = { inProcess: requestsCovered(await searcher.routeStats(SEED_END_MS, 7 * 86_400_000)), http: requestsCovered(await statsOverHttp(server.url, '7d')) }
      statsCoverage[label] = covered
      log(`route statistics (7d), ${label} store: ${covered.inProcess} requests in the in-process window, ${covered.http} in the HTTP one (ending now)`)
    } finally {
      await server.stop()
      await searcher.close()
    }
    timings[label] = bySize
  }
  const rows = [...cases.map(({ name }) => name), 'route statistics (7d)'].map(name => {
    const small = timings.small?.[name]
    const large = timings.large?.[name]
    return {
      query: name,
      small,
      large,
      ratioP99InProcess: round((large?.inProcess.p99 ?? 0) / (small?.inProcess.p99 ?? 1), 2),
      ratioP99Http: round((large?.http.p99 ?? 0) / (small?.http.p99 ?? 1), 2)
    }
  })
  const f = (t: Timing | undefined): string => `${(t?.p50 ?? 0).toFixed(3)} / ${(t?.p99 ?? 0).toFixed(3)}`
  log(`| query | in-process 10k | in-process ${SIZES.large / 1000}k | p99 ratio | HTTP 10k | HTTP ${SIZES.large / 1000}k | p99 ratio |`)
  log('|---|---|---|---|---|---|---|')
  for (const row of rows) {
    log(`| ${row.query} | ${f(row.small?.inProcess)} | ${f(row.large?.inProcess)} | ${row.ratioP99InProcess} | ${f(row.small?.http)} | ${f(row.large?.http)} | ${row.ratioP99Http} |`)
  }
  results.search = { sizes: SIZES, rows, statsRequestsCovered: statsCoverage }
}

async function measureMemory (): Promise<void> {
  log(`\n## Memory over ${RSS_REQUESTS.toLocaleString('en')} profiled requests (default retention bounds, empty store)`)
  const empty = await store.runStore(0)
  const server = await startBenchServer({ PROFILER: 'on', DATABASE_PATH: join(DATA, 'app.sqlite'), ...empty.env })
  try {
    await runLoad(server.url, 'seed-like', { amount: 10_000 })
    const before = server.rssBytes()
    const load = await runLoad(server.url, 'seed-like', { amount: RSS_REQUESTS })
    await new Promise(resolve => setTimeout(resolve, 2000))
    const after = server.rssBytes()
    results.memory = { requests: load.requests, rssBeforeMB: round(before / 2 ** 20, 1), rssAfterMB: round(after / 2 ** 20, 1), growthMB: round((after - before) / 2 ** 20, 1), errors: load.errors }
    log(`RSS ${(before / 2 ** 20).toFixed(1)} MB -> ${(after / 2 ** 20).toFixed(1)} MB after ${load.requests} requests (growth ${((after - before) / 2 ** 20).toFixed(1)} MB, ${load.errors} errors)`)
  } finally {
    await server.stop()
    await empty.remove()
  }
}

async function measureSuiteCosts (): Promise<void> {
  log('\n## What a test process pays (CPU, all threads)')
  const loading = measureModuleLoading(smoke ? 1 : 5)
  log(`importing the app: ${loading.plainMs} ms; under tap's coverage hooks ${loading.tapHooksMs} ms (${loading.hooksRatio}x); with TypeBox preloaded ${loading.tapHooksTypeboxPreloadedMs} ms (${loading.preloadedRatio}x)`)
  const server = await startBenchServer({ PROFILER: 'off', DATABASE_PATH: join(DATA, 'app.sqlite') })
  const client = await measurePollClient(server, smoke ? 200 : 4000)
  await server.stop()
  log(`a load-loop request, client side: node:http ${client.httpUsPerRequest} µs, fetch ${client.fetchUsPerRequest} µs (${client.fetchRatio}x)`)
  const apps = await measureAppBuilds(smoke ? 2 : 20)
  log(`building, warming and closing an app: the first in the process ${apps.firstAppMs} ms, the next ones ${apps.laterAppMs} ms (${apps.laterRatio}x)`)
  results.suite = { moduleLoading: loading, pollClient: client, appBuilds: apps }
}

async function measurePagesBesidePoll (): Promise<void> {
  const profiles = smoke ? 2_000 : 55_000
  log(`\n## Profiler pages beside the status poll (${profiles.toLocaleString('en')} scanner profiles, poll on 2 connections, 8 page clients, ${SECONDS} s each)`)
  const pages = await measurePages(DATA, profiles, SECONDS)
  const f = (run: { requestsPerSecond: number, p99: number }): string => `${run.requestsPerSecond} req/s, p99 ${run.p99} ms`
  log('| run | status poll | ratio to alone | page clients |')
  log('|---|---|---|---|')
  log(`| poll alone | ${f(pages.pollAlone)} | 1 | - |`)
  log(`| beside ${COSTLY_SEARCH} | ${f(pages.besideSearch)} | ${pages.besideSearch.ratio} | ${f(pages.besideSearch.pages)}, ${pages.besideSearch.pages.non2xx} non-2xx |`)
  log(`| beside ${LARGE_HAR} | ${f(pages.besideHar)} | ${pages.besideHar.ratio} | ${f(pages.besideHar.pages)}, ${pages.besideHar.pages.non2xx} non-2xx |`)
  results.pages = pages
}

async function measureScannerBursts (): Promise<void> {
  const requests = smoke ? 2_000 : 50_000
  const after = smoke ? 1 : 10
  log(`\n## Scanner bursts into an empty SQLite store (${requests.toLocaleString('en')} GETs to distinct 200-character paths, observed ${after} s more)`)
  log('| byte bound | connections | req/s | peak used (% of bound, at) | after the burst: used, profiles | profiles: most, fewest once full |')
  log('|---|---|---|---|---|---|')
  const runs = []
  for (const [maxBytes, connections] of [[5 * 2 ** 20, 16], [16 * 2 ** 20, 1]] as const) {
    mkdirSync(DATA, { recursive: true })
    const run = await measureScannerBurst(DATA, maxBytes, connections, requests, after)
    const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`
    log(`| ${maxBytes / 2 ** 20} MiB | ${connections} | ${run.requestsPerSecond} | ${mb(run.peakUsedBytes)} (${Math.round(100 * run.peakUsedBytes / maxBytes)}%, ${run.peakAtSeconds} s) | ${mb(run.finalUsedBytes)} (${Math.round(100 * run.finalUsedBytes / maxBytes)}%), ${run.finalProfiles} | ${run.maxProfiles}, ${run.minProfilesOnceFull} |`)
    runs.push(run)
  }
  results.burst = runs
}

const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, date: new Date().toISOString(), quick, smoke, seconds: SECONDS, rounds: ROUNDS, store: store.name }
log(`# Profiler benchmark${quick ? ' (--quick)' : ''}${smoke ? ' (--smoke: not a measurement)' : ''}, ${store.name} store: ${machine.nproc} cores, ${machine.cpu}, Node ${machine.node}, ${machine.date}`)
results.machine = machine
// First: it measures the first app this process builds.
const sections: Record<string, () => Promise<void>> = { suite: measureSuiteCosts, store: measureStore, cpu: measureCpuPerRequest, panels: measurePanelsCost, hooks: measureHookTimingCost, sampling: measureSamplingCost, recording: measureRecording, otlp: measureOtlpExportCost, search: measureSearch, throughput: measureThroughput, memory: measureMemory, pages: measurePagesBesidePoll, burst: measureScannerBursts }
const only = process.argv.find(arg => arg.startsWith('--only='))?.slice('--only='.length).split(',')
// The sections that run on empty stores only need no seeded one.
const needsStore = only === undefined || only.some(name => !['suite', 'pages', 'burst', 'sampling', 'recording', 'otlp', 'panels', 'hooks'].includes(name))
for (const [name, section] of Object.entries(sections)) {
  // --only=cpu runs the panels' before and after too (as it always has); --only=panels runs it alone.
  if (only === undefined || only.includes(name) || (name === 'store' && needsStore) || (name === 'panels' && only.includes('cpu'))) await section()
}
await store.close()
// A partial run (--only=) updates its sections and keeps the others of the last full run; a smoke run writes nothing.
const resultsFile = join(packageRoot, 'bench', store.name === 'sqlite' ? 'results.json' : `results-${store.name}.json`)
if (smoke) process.exit(0)
const previous = only !== undefined && existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown> : {}
// When and how each section was measured: a partial run keeps the others' dates.
const measured = { date: machine.date, seconds: SECONDS, rounds: ROUNDS, quick }
const sectionRuns = { ...(previous.sectionRuns as Record<string, unknown> | undefined), ...Object.fromEntries(Object.keys(results).filter(name => name !== 'machine').map(name => [name, measured])) }
writeFileSync(resultsFile, `${JSON.stringify({ ...previous, ...results, sectionRuns }, null, 2)}\n`)
log(`\nwritten: ${relative(packageRoot, resultsFile)}`)
for (const path of writeBenchDocs(packageRoot)) log(`written: ${path}`)
