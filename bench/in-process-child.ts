// One run of the in-process measurement (in-process.ts), in a child process of its own: the app of
// a given build (this one, or another revision's worktree) with the profiler on, the seed-like mix
// driven through app.inject() (no sockets, no HTTP parsing: the request path's own work and the
// profiler's), and one JSON line printed: the main thread's CPU a request, then, over a second
// pass, the bytes it allocated a request (V8's sampling heap profiler, collected objects included).
import { mkdtempSync, rmSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { mixRequest } from './load.js'
import { randomSource } from './seed.js'
import { UNBOUNDED_RETENTION_ENV } from './stores.js'
import { readThreadCpu } from './thread-cpu.js'

const [root = '', requestsArg = '30000'] = process.argv.slice(2)
const requests = Number(requestsArg)
const WARMUP = 5000
/** The sampling heap profiler's mean interval, in bytes: fine enough for a per-request mean. */
const SAMPLING_BYTES = 1024

interface AllocationNode { selfSize: number, children: AllocationNode[] }
const allocated = (node: AllocationNode): number => node.children.reduce((sum, child) => sum + allocated(child), node.selfSize)

const { buildApp } = await import(pathToFileURL(join(root, 'dist', 'app.js')).href) as { buildApp: (config: unknown) => Promise<FastifyInstance> }
const { loadConfig } = await import(pathToFileURL(join(root, 'dist', 'config.js')).href) as { loadConfig: (env: Record<string, string>) => unknown }
const dir = mkdtempSync(join(tmpdir(), 'bench-in-process-'))
const app = await buildApp(loadConfig({
  NODE_ENV: 'development',
  LOG_LEVEL: 'silent',
  PROFILER: 'on',
  DATABASE_PATH: join(dir, 'app.sqlite'),
  PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite'),
  MAX_EVENT_LOOP_DELAY: '0ms',
  ...UNBOUNDED_RETENTION_ENV
}))
await app.ready()

const random = randomSource(7)
async function drive (count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { method, path, body } = mixRequest('seed-like', random)
    await app.inject({ method, url: path, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: body }) })
    // A turn of the event loop now and then: the queue's timers hand the profiles to the writer.
    if (i % 200 === 199) await new Promise(resolve => setImmediate(resolve))
  }
}

await drive(WARMUP)
const before = readThreadCpu(process.pid)
await drive(requests)
const after = readThreadCpu(process.pid)
const session = new Session()
session.connect()
await session.post('HeapProfiler.startSampling', { samplingInterval: SAMPLING_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
await drive(requests)
const { profile } = await session.post('HeapProfiler.stopSampling')
session.disconnect()
await app.close()
rmSync(dir, { recursive: true, force: true })
process.stdout.write(`${JSON.stringify({ requestUs: (after.requestMs - before.requestMs) * 1000 / requests, allocatedBytes: allocated(profile.head as AllocationNode) / requests })}\n`)
