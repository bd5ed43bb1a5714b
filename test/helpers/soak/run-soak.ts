// The soak harness: a real server child process, hostile traffic, a seeded schedule of store faults,
// and the invariants of issue #20 checked throughout and at the end. Used by `npm run soak` and by
// test/e2e/soak.test.ts (a shortened run).
import { spawn, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { packageRoot } from '../../../paths.js'
import { postgresStoredTokens, storedTokens } from '../stored-tokens.js'
import { rssOf } from '../process-memory.js'
import { startThrowawayCluster, postgresBinDir, type ThrowawayCluster } from '../throwaway-cluster.js'
import { SCHEMA_BYTES_SQL } from '../postgres.js'
import { START_NODE_OPTIONS } from '../start-options.js'

export interface SoakOptions {
  engine: 'sqlite' | 'postgres'
  durationMs: number
  seed: number
  maxBytes: number
  maxProfiles: number
  /** RSS bound of the server process, in bytes. */
  maxRssBytes: number
  /** p99 bound of the status poll (POST /monitor/MonitorPooling), in ms. */
  maxPollP99Ms: number
  log?: (line: string) => void
}

interface Invariant { name: string, ok: boolean, detail: string }
export interface SoakResult { invariants: Invariant[], schedule: string[], counts: Record<string, number> }

/** mulberry32: a small seeded generator, so a schedule printed with its seed can be replayed. */
function seeded (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Fault { atMs: number, kind: string, forMs: number }

const SQLITE_FAULTS = ['sqlite-locked', 'disk-full']
const POSTGRES_FAULTS = ['pg-stopped', 'pg-restarted', 'pg-table-locked', 'pg-password-rotated']

/** Faults spread over the first 80% of the run, so the last part shows the store recovering. */
function faultSchedule (engine: SoakOptions['engine'], seed: number, durationMs: number): Fault[] {
  const random = seeded(seed)
  const kinds = engine === 'sqlite' ? SQLITE_FAULTS : POSTGRES_FAULTS
  const faults: Fault[] = []
  let at = Math.floor(durationMs * 0.1)
  while (at < durationMs * 0.8) {
    const forMs = 2000 + Math.floor(random() * Math.min(8000, durationMs * 0.1))
    faults.push({ atMs: at, kind: kinds[Math.floor(random() * kinds.length)] ?? 'sqlite-locked', forMs })
    at += forMs + 1000 + Math.floor(random() * durationMs * 0.1)
  }
  return faults
}

function percentile (values: number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

const delay = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

/** A distinct path of about 200 characters, as a scanner sends. */
function scannerPath (random: () => number, n: number): string {
  const stem = `/scan/${n.toString(36)}/`
  let tail = ''
  while (stem.length + tail.length < 200) tail += Math.floor(random() * 2 ** 32).toString(36)
  return stem + tail.slice(0, 200 - stem.length)
}

type Cleanup = () => Promise<void> | void

/** Runs one soak; the server, the cluster, the mount and the folder are removed whatever happens. */
export async function runSoak (options: SoakOptions): Promise<SoakResult> {
  const cleanups: Cleanup[] = []
  try {
    return await soak(options, cleanups)
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try { await cleanup() } catch { /* best effort */ }
    }
  }
}

async function soak (options: SoakOptions, cleanups: Cleanup[]): Promise<SoakResult> {
  const log = options.log ?? (() => {})
  const dir = mkdtempSync(join(tmpdir(), 'soak-'))
  cleanups.push(() => { rmSync(dir, { recursive: true, force: true }) })
  const schedule = faultSchedule(options.engine, options.seed, options.durationMs)
  const scheduleText = schedule.map(f => `+${(f.atMs / 1000).toFixed(1)}s ${f.kind} for ${(f.forMs / 1000).toFixed(1)}s`)
  log(`soak: engine=${options.engine} seed=${options.seed} duration=${options.durationMs} ms`)
  for (const line of scheduleText) log(`  fault ${line}`)

  // SQLite's profiler file on a small tmpfs (root only) so that "disk full" is a real ENOSPC.
  let mounted: string | null = null
  const storeDir = join(dir, 'store')
  mkdirSync(storeDir)
  if (options.engine === 'sqlite' && process.getuid?.() === 0) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.max(16, Math.ceil(options.maxBytes * 4 / 2 ** 20))}m`, 'tmpfs', storeDir], { stdio: 'ignore' })
      mounted = storeDir
      cleanups.push(() => { execFileSync('umount', ['-l', storeDir], { stdio: 'ignore' }) })
    } catch { /* no mount: disk full then fills the temp folder's file system is skipped */ }
  }
  const profilerPath = join(storeDir, 'profiler.sqlite')
  let cluster: ThrowawayCluster | null = null
  let profilerUrl: string | null = null
  if (options.engine === 'postgres') {
    if (postgresBinDir() === null) throw new Error('PostgreSQL is not installed')
    // Its own folder under the temp dir: the postgres user cannot enter a 0700 folder of root's.
    const pgDir = mkdtempSync(join(tmpdir(), 'soak-pg-'))
    cluster = await startThrowawayCluster(pgDir)
    const started = cluster
    cleanups.push(async () => { await started.remove() })
    await cluster.createDatabase('soak_profiler')
    profilerUrl = await passwordRole(cluster, pgDir)
  }

  const child = spawn(process.execPath, [...START_NODE_OPTIONS, join(packageRoot, 'dist', 'server.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      NODE_ENV: 'development',
      PROFILER: 'on',
      DATABASE_PATH: join(dir, 'app.sqlite'),
      PROFILER_MAX_BYTES: String(options.maxBytes),
      PROFILER_MAX_PROFILES: String(options.maxProfiles),
      ...(profilerUrl === null ? { PROFILER_DATABASE_PATH: profilerPath } : { PROFILER_DATABASE_URL: profilerUrl })
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let serverLog = ''
  child.stdout.on('data', chunk => { serverLog = (serverLog + String(chunk)).slice(-200_000) })
  child.stderr.on('data', chunk => { serverLog = (serverLog + String(chunk)).slice(-200_000) })
  let exitCode: number | null | undefined
  child.on('exit', (code, signal) => { exitCode = code ?? (signal === null ? -1 : -2) })
  const pid = child.pid ?? 0
  cleanups.push(async () => {
    if (exitCode !== undefined) return
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await Promise.race([exited, delay(10_000)])
    if (exitCode === undefined) child.kill('SIGKILL')
  })
  const base = await new Promise<string>((resolve, reject) => {
    // A bound on a condition, not a pause: beside CI's CPU hog a start took over 30 s (14 s of it
    // between two start-up lines), so the bound is most of the test's own 180 s.
    const timer = setTimeout(() => { reject(new Error(`the server did not start: ${serverLog}`)) }, 90_000)
    const check = (): void => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(serverLog)
      if (match?.[1] !== undefined) { clearTimeout(timer); resolve(match[1]) }
    }
    child.stdout.on('data', check)
    child.on('exit', () => { clearTimeout(timer); reject(new Error(`the server exited early: ${serverLog}`)) })
  })

  const counts: Record<string, number> = { requests: 0, answered: 0, networkErrors: 0, status503: 0, unexpected5xx: 0, pollRequests: 0 }
  const tokens: string[] = []
  const startOf = new Map<string, number>()
  const unexpected: string[] = []
  /** The first requests that ended without an answer, and why (printed in the summary). */
  const networkErrors: string[] = []
  const pollMs: number[] = []
  let maxRss = 0
  let minProfilesAfterFill = Infinity
  let maxStoreBytes = 0
  let maxStoreProfiles = 0
  let lastDropped = 0
  let stateOkWhileFailing = 0
  const deadline = Date.now() + options.durationMs
  const random = seeded(options.seed ^ 0x5eed)
  const running = (): boolean => Date.now() < deadline && exitCode === undefined
  let scanN = 0

  const send = async (method: string, path: string, body?: string, type = 'application/json'): Promise<Response | null> => {
    counts.requests = (counts.requests ?? 0) + 1
    const startedAt = performance.now()
    try {
      const res = await fetch(base + path, { method, ...(body === undefined ? {} : { body, headers: { 'content-type': type } }), signal: AbortSignal.timeout(30_000) })
      await res.arrayBuffer()
      counts.answered = (counts.answered ?? 0) + 1
      const token = res.headers.get('x-debug-token')
      if (token !== null) { tokens.push(token); startOf.set(token, startedAt) }
      if (res.status === 503) counts.status503 = (counts.status503 ?? 0) + 1
      else if (res.status >= 500) {
        counts.unexpected5xx = (counts.unexpected5xx ?? 0) + 1
        if (unexpected.length < 10) unexpected.push(`${res.status} ${method} ${path.slice(0, 60)}`)
      }
      return res
    } catch (err) {
      counts.networkErrors = (counts.networkErrors ?? 0) + 1
      const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message
      if (networkErrors.length < 5) networkErrors.push(`${method} ${path.slice(0, 40)}: ${cause} after ${Math.round(performance.now() - startedAt)} ms`)
      return null
    }
  }

  const big = JSON.stringify({ code: 'ADV1001', padding: 'x'.repeat(2 ** 20) })
  const loops: Array<() => Promise<void>> = [
    async () => { await send('GET', scannerPath(random, scanN++)) },
    async () => { await send('POST', scannerPath(random, scanN++), '{"a":1}') },
    async () => { await send('POST', '/ccenter/getConseillerByCode', '{"code":"ADV1001"}') },
    async () => { await send('POST', '/ccenter/getConseillerByCode', big) },
    async () => {
      const started = performance.now()
      const res = await send('POST', '/monitor/MonitorPooling', '{}')
      if (res !== null) { pollMs.push(performance.now() - started); counts.pollRequests = (counts.pollRequests ?? 0) + 1 }
    },
    async () => { await send('GET', '/_profiler/empty/search/results?limit=100&url=scan%2F1', undefined) },
    async () => { await send('GET', '/_profiler/empty/search/har?limit=100', undefined) }
  ]
  const workers = loops.map(async loop => { while (running()) await loop() })

  // Sampling: RSS, store bytes and profiles, health.
  const sampler = (async () => {
    while (running()) {
      maxRss = Math.max(maxRss, rssOf(pid))
      const store = await storeCounts(options.engine, profilerPath, profilerUrl)
      if (store !== null) {
        maxStoreBytes = Math.max(maxStoreBytes, store.bytes)
        maxStoreProfiles = Math.max(maxStoreProfiles, store.profiles)
        if (maxStoreProfiles >= options.maxProfiles) minProfilesAfterFill = Math.min(minProfilesAfterFill, store.profiles)
      }
      const health = await healthOf(base)
      if (health !== null) lastDropped = health.dropped
      await delay(500)
    }
  })()

  // Faults, applied in order.
  const faulting = (async () => {
    const started = Date.now()
    for (const fault of schedule) {
      const wait = started + fault.atMs - Date.now()
      if (wait > 0) await delay(wait)
      if (exitCode !== undefined) break
      log(`  +${((Date.now() - started) / 1000).toFixed(1)}s injecting ${fault.kind}`)
      try {
        const newest = async (): Promise<number | null> => await newestStoredId(options.engine, profilerPath, profilerUrl)
        await inject(fault, profilerPath, mounted !== null, cluster, newest, async writtenBefore => {
          // "ok" is right only if the store really wrote something since the fault began.
          if ((await healthOf(base))?.state !== 'ok') return
          const now = await newest()
          if (writtenBefore === null || now === null || now <= writtenBefore) stateOkWhileFailing++
        })
      } catch (error) {
        log(`  fault ${fault.kind} could not be injected: ${(error as Error).message}`)
      }
    }
  })()

  await Promise.all([...workers, sampler, faulting])

  // The end: a quiet phase, then a burst smaller than the count bound whose tokens must all be stored
  // or counted as dropped.
  const alive = exitCode === undefined
  let missing = 0
  let lostOverRun = 0
  let checkedOverRun = 0
  let finalDropped = lastDropped
  let burstTokens: string[] = []
  if (alive) {
    const droppedBefore = (await healthOf(base))?.dropped ?? lastDropped
    const before = tokens.length
    const burst = Math.min(200, Math.floor(options.maxProfiles / 4))
    for (let i = 0; i < burst; i++) await send('POST', '/ccenter/getConseillerByCode', '{"code":"ADV1001"}')
    burstTokens = tokens.slice(before)
    for (let i = 0; i < 300; i++) {
      const health = await healthOf(base)
      if (health !== null && health.queued === 0) break
      await delay(100)
    }
    finalDropped = (await healthOf(base))?.dropped ?? finalDropped
    const present = await presentTokens(options.engine, profilerPath, profilerUrl, burstTokens)
    missing = burstTokens.length - present.size - (finalDropped - droppedBefore)
    // The whole run: retention removes the oldest first, so every token answered after the oldest one
    // still stored must be stored or dropped (the first 100 after it are left out: answers of the
    // concurrent loops start within the same milliseconds).
    const all = await presentTokens(options.engine, profilerPath, profilerUrl, tokens)
    // Retention removes by request start (the profile's id), so the tokens are put in that order.
    const byStart = [...tokens].sort((a, b) => (startOf.get(a) ?? 0) - (startOf.get(b) ?? 0))
    const oldest = byStart.findIndex(token => all.has(token))
    const after = oldest < 0 ? [] : byStart.slice(oldest + 100)
    lostOverRun = after.filter(token => !all.has(token)).length - finalDropped
    checkedOverRun = after.length
    const store = await storeCounts(options.engine, profilerPath, profilerUrl)
    if (store !== null) { maxStoreBytes = Math.max(maxStoreBytes, store.bytes); maxStoreProfiles = Math.max(maxStoreProfiles, store.profiles) }
    maxRss = Math.max(maxRss, rssOf(pid))
  }

  for (const line of networkErrors) log(`  no answer: ${line}`)
  const p99 = percentile(pollMs, 0.99)
  const invariants: Invariant[] = [
    { name: 'no crash', ok: alive, detail: alive ? 'process alive' : `exited with ${String(exitCode)}` },
    { name: 'RSS bound', ok: maxRss <= options.maxRssBytes, detail: `max ${(maxRss / 2 ** 20).toFixed(0)} MiB, bound ${(options.maxRssBytes / 2 ** 20).toFixed(0)} MiB` },
    { name: 'store bytes within 10%', ok: maxStoreBytes <= options.maxBytes * 1.1, detail: `max ${(maxStoreBytes / 2 ** 20).toFixed(1)} MiB, bound ${(options.maxBytes / 2 ** 20).toFixed(1)} MiB` },
    { name: 'store profiles within 10%', ok: maxStoreProfiles <= options.maxProfiles * 1.1, detail: `max ${maxStoreProfiles}, bound ${options.maxProfiles}` },
    { name: 'profiles never below half', ok: minProfilesAfterFill === Infinity || minProfilesAfterFill >= options.maxProfiles / 2, detail: `min after fill ${minProfilesAfterFill === Infinity ? 'n/a (never filled)' : minProfilesAfterFill}` },
    { name: 'answered = stored or dropped', ok: alive && missing <= 0, detail: `final burst ${burstTokens.length}, unaccounted ${missing}, dropped total ${finalDropped}` },
    { name: 'whole run: stored or dropped', ok: alive && lostOverRun <= 0, detail: `${checkedOverRun} answered after the oldest stored, ${Math.max(0, lostOverRun)} neither stored nor counted as dropped` },
    { name: 'no 5xx but 503', ok: counts.unexpected5xx === 0, detail: `${counts.unexpected5xx} unexpected (${unexpected.join('; ')}), ${counts.status503} 503s` },
    { name: 'status poll p99', ok: p99 <= options.maxPollP99Ms && pollMs.length > 0, detail: `p99 ${p99.toFixed(0)} ms over ${pollMs.length}, bound ${options.maxPollP99Ms} ms` },
    { name: 'health not ok during a fault', ok: stateOkWhileFailing === 0, detail: `${stateOkWhileFailing} fault(s) with the listing still "ok"` }
  ]

  return { invariants, schedule: scheduleText, counts: { ...counts, tokens: tokens.length, maxRss, maxStoreBytes, maxStoreProfiles } }
}

async function healthOf (base: string): Promise<{ state: string, dropped: number, queued: number } | null> {
  try {
    const res = await fetch(`${base}/_profiler/empty/search/results?limit=1`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) })
    if (res.status !== 200) return null
    return ((await res.json()) as { store: { state: string, dropped: number, queued: number } }).store
  } catch {
    return null
  }
}

async function storeCounts (engine: SoakOptions['engine'], path: string, url: string | null): Promise<{ bytes: number, profiles: number } | null> {
  try {
    if (engine === 'sqlite') {
      const db = new Database(path, { readonly: true, timeout: 200 })
      try {
        const pages = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
        const profiles = (db.prepare('SELECT count(*) AS n FROM profiles').get() as { n: number }).n
        return { bytes: pages, profiles }
      } finally { db.close() }
    }
    const client = new pg.Client({ connectionString: url ?? '', connectionTimeoutMillis: 2000 })
    await client.connect()
    try {
      // The profiler's own tables with their indexes and TOAST, not the catalog every database has.
      const bytes = Number((await client.query(SCHEMA_BYTES_SQL)).rows[0].bytes)
      const profiles = Number((await client.query('SELECT count(*) AS n FROM profiles')).rows[0].n)
      return { bytes, profiles }
    } finally { await client.end() }
  } catch {
    return null
  }
}

/** The newest stored profile's id, or null when the store cannot be read within a second. */
async function newestStoredId (engine: SoakOptions['engine'], path: string, url: string | null): Promise<number | null> {
  try {
    if (engine === 'sqlite') {
      const db = new Database(path, { readonly: true, timeout: 1000 })
      try { return Number(db.prepare('SELECT coalesce(max(id), 0) FROM profiles').pluck().get()) } finally { db.close() }
    }
    const client = new pg.Client({ connectionString: url ?? '', connectionTimeoutMillis: 1000, statement_timeout: 1000 })
    await client.connect()
    try { return Number((await client.query('SELECT coalesce(max(id), 0) AS id FROM profiles')).rows[0].id) } finally { await client.end() }
  } catch {
    return null
  }
}

async function presentTokens (engine: SoakOptions['engine'], path: string, url: string | null, tokens: string[]): Promise<Set<string>> {
  if (tokens.length === 0) return new Set()
  const found = engine === 'sqlite' ? storedTokens(path) : await postgresStoredTokens(url ?? '')
  const asked = new Set(tokens)
  return new Set([...found].filter(token => asked.has(token)))
}

const SOAK_ROLE = 'soak'
const SOAK_PASSWORD = 'soak-password-1'

/**
 * The profiler connects as a role that must give its password (the throwaway cluster trusts every
 * other connection), so that a password rotation is a real fault. Resolves with the role's URL.
 */
export async function passwordRole (cluster: ThrowawayCluster, pgDir: string): Promise<string> {
  await cluster.query(`CREATE ROLE ${SOAK_ROLE} LOGIN PASSWORD '${SOAK_PASSWORD}'`)
  await cluster.query(`ALTER DATABASE soak_profiler OWNER TO ${SOAK_ROLE}`)
  const db = new pg.Client({ connectionString: cluster.urlOf('soak_profiler') })
  await db.connect()
  try { await db.query(`ALTER SCHEMA public OWNER TO ${SOAK_ROLE}`) } finally { await db.end() }
  const hba = join(pgDir, 'data', 'pg_hba.conf')
  writeFileSync(hba, `host all ${SOAK_ROLE} 127.0.0.1/32 scram-sha-256\n` + readFileSync(hba, 'utf8'))
  await cluster.query('SELECT pg_reload_conf()')
  return `postgres://${SOAK_ROLE}:${SOAK_PASSWORD}@127.0.0.1:${cluster.port}/soak_profiler`
}

/**
 * The health is probed once during each fault, halfway through and at least 1.5 s in (a write the
 * store has not answered for 1 s makes it "failing"): it must not say "ok" unless the store wrote
 * something after the fault began (a full disk may leave room in the WAL; a restarted cluster is back).
 */
async function inject (fault: Fault, profilerPath: string, smallFs: boolean, cluster: ThrowawayCluster | null, newest: () => Promise<number | null>, probe: (writtenBefore: number | null) => Promise<void>): Promise<void> {
  const probeAt = Math.max(fault.forMs / 2, Math.min(fault.forMs - 250, 1500))
  const halfway = async (): Promise<void> => { const before = await newest(); await delay(probeAt); await probe(before); await delay(fault.forMs - probeAt) }
  switch (fault.kind) {
    case 'sqlite-locked': {
      const db = new Database(profilerPath, { timeout: 5000 })
      db.exec('BEGIN IMMEDIATE')
      try { await halfway() } finally { db.exec('ROLLBACK'); db.close() }
      return
    }
    case 'disk-full': {
      // Fills the file system the profiler file lives on (a small tmpfs when run as root).
      if (!smallFs) throw new Error('no small file system mounted (needs root): skipped')
      const filler = `${profilerPath}.filler`
      try {
        const chunk = Buffer.alloc(2 ** 20)
        for (let i = 0; i < 4096; i++) writeFileSync(filler, chunk, { flag: 'a' })
      } catch { /* ENOSPC: full */ }
      try { await halfway() } finally { try { unlinkSync(filler) } catch {} }
      return
    }
    case 'pg-stopped':
      await cluster?.stop()
      try { await halfway() } finally { await cluster?.start() }
      return
    case 'pg-restarted':
      await cluster?.stop()
      await cluster?.start()
      await halfway()
      return
    case 'pg-password-rotated':
      // The password changes and the role's sessions end; the deployment catches up forMs later.
      await cluster?.query(`ALTER ROLE ${SOAK_ROLE} PASSWORD 'rotated-away'`)
      await cluster?.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [SOAK_ROLE])
      try { await halfway() } finally { await cluster?.query(`ALTER ROLE ${SOAK_ROLE} PASSWORD '${SOAK_PASSWORD}'`) }
      return
    case 'pg-table-locked': {
      const client = new pg.Client({ connectionString: cluster?.urlOf('soak_profiler') ?? '' })
      await client.connect()
      await client.query('BEGIN')
      await client.query('LOCK TABLE profiles IN ACCESS EXCLUSIVE MODE')
      try { await halfway() } finally { await client.query('ROLLBACK').catch(() => {}); await client.end() }
    }
  }
}

export function summaryTable (result: SoakResult): string {
  const width = Math.max(...result.invariants.map(i => i.name.length))
  return result.invariants.map(i => `${i.ok ? 'PASS' : 'FAIL'}  ${i.name.padEnd(width)}  ${i.detail}`).join('\n')
}
