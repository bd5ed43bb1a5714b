// What a test process pays, for docs/development.md, "The suite" (npm run bench -- --only=suite):
// loading the app under tap's coverage hooks with and without TypeBox preloaded, a load-loop
// request through fetch and through node:http, and building an app the first time in a process
// and after. Each figure is CPU (all threads of the process), given against a baseline of the run.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import { packageRoot } from '../paths.js'
import type { BenchServer } from './server-process.js'
import { median, round } from './stats.js'

const APP_URL = pathToFileURL(join(packageRoot, 'dist', 'app.js')).href
const TAP_HOOKS = pathToFileURL(join(packageRoot, 'node_modules', '@tapjs', 'processinfo', 'dist', 'esm', 'import.mjs')).href

/** CPU milliseconds of a new node process (every thread) that imports the built app. */
function importCpuMs (nodeArgs: string[]): number {
  const code = `await import(${JSON.stringify(APP_URL)}); const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000))`
  const child = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', code], { cwd: packageRoot, encoding: 'utf8' })
  if (child.status !== 0) throw new Error(`importing the app failed: ${child.stderr}`)
  return Number(child.stdout)
}

/** Loading the app: plainly (the baseline), under tap's hooks, and under them with TypeBox preloaded (test/preload-typebox.cts). */
export function measureModuleLoading (runs: number): Record<string, number> {
  const medianOf = (nodeArgs: string[]): number => median(Array.from({ length: runs }, () => importCpuMs(nodeArgs)))
  const plain = medianOf([])
  const hooks = medianOf([`--import=${TAP_HOOKS}`])
  const preloaded = medianOf(['--require=typebox', `--import=${TAP_HOOKS}`])
  return { plainMs: round(plain, 0), tapHooksMs: round(hooks, 0), tapHooksTypeboxPreloadedMs: round(preloaded, 0), hooksRatio: round(hooks / plain), preloadedRatio: round(preloaded / plain) }
}

/** Client CPU microseconds a status poll, `requests` of them, 8 at a time. */
async function clientCpuUs (requests: number, poll: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage()
  await Promise.all(Array.from({ length: 8 }, async () => { for (let i = 0; i < requests / 8; i++) await poll() }))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / requests
}

/** A load-loop request (test/helpers/poll-load.ts) through node:http with a keep-alive agent (the baseline) and through fetch. */
export async function measurePollClient (server: BenchServer, requests: number): Promise<Record<string, number>> {
  const url = new URL('/monitor/MonitorPooling', server.url)
  const agent = new Agent({ keepAlive: true })
  const viaHttp = async (): Promise<void> => {
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': 2 } }, res => {
        res.on('end', resolve).on('error', reject).resume()
      })
      req.on('error', reject)
      req.end('{}')
    })
  }
  const viaFetch = async (): Promise<void> => {
    await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).arrayBuffer()
  }
  await clientCpuUs(Math.min(requests, 400), viaHttp)
  await clientCpuUs(Math.min(requests, 400), viaFetch)
  const http = await clientCpuUs(requests, viaHttp)
  const fetched = await clientCpuUs(requests, viaFetch)
  agent.destroy()
  return { httpUsPerRequest: round(http, 0), fetchUsPerRequest: round(fetched, 0), fetchRatio: round(fetched / http) }
}

/** CPU milliseconds to build an app, answer a few requests and close it. */
async function appCpuMs (): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-app-'))
  const before = process.cpuUsage()
  try {
    const app = await buildApp(loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_PATH: join(dir, 'app.sqlite'), PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite'), MAX_EVENT_LOOP_DELAY: '0ms', PROFILER_WRITER: 'inline' }))
    await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
    await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', payload: { code: 'ADV1001' } })
    await app.inject({ method: 'GET', url: '/nope' })
    await app.inject({ method: 'GET', url: '/_profiler/empty/search/results', headers: { accept: 'application/json' } })
    await app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

/**
 * An app built the first time in this process (the baseline: every schema compiled) and the next
 * ones (schema-compilers.ts: validators and serializers already compiled, as for the ~200 apps a
 * test run builds). Run in a process that has built no app yet.
 */
export async function measureAppBuilds (apps: number): Promise<Record<string, number>> {
  const first = await appCpuMs()
  const later: number[] = []
  for (let i = 0; i < apps; i++) later.push(await appCpuMs())
  return { firstAppMs: round(first, 1), laterAppMs: round(median(later), 1), laterRatio: round(median(later) / first) }
}
