// One replay (writer-replay.ts) in a child process of its own: the batches a recording holds
// (writer-record.ts) fed to a given build's writer service on a fresh SQLite store, after a warm-up
// on another store (the JIT warm, as in a server that has run a while). Prints one JSON line: the
// main thread's CPU a stored profile (unpacking, shaping, the store's writes and retention), and
// the store's bytes a profile. The recorded requests are deserialised before the clock starts:
// the structured clone's cost is the request hand-over's, not measured here.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { deserialize } from 'node:v8'
import type { WriterMessage, WriterRequest, WriterSettings } from '../plugins/profiler/runtime/writer-protocol.js'
import type { WriterService } from '../plugins/profiler/writer/writer-service.js'
import { mainThreadNs } from './thread-cpu.js'

const [root = '', file = '', warmupArg = '40'] = process.argv.slice(2)
const warmupBatches = Number(warmupArg)
const { startWriterService } = await import(pathToFileURL(join(root, 'dist', 'plugins', 'profiler', 'writer', 'writer-service.js')).href) as { startWriterService: (settings: WriterSettings, send: (message: WriterMessage) => void) => WriterService }
const recording = deserialize(readFileSync(file)) as { settings: Omit<WriterSettings, 'target'>, requests: Buffer[] }
const dir = mkdtempSync(join(tmpdir(), 'bench-writer-replay-'))

async function replay (name: string, requests: WriterRequest[]): Promise<{ ns: number, written: number, path: string }> {
  const path = join(dir, `${name}.sqlite`)
  let written = 0
  const service = startWriterService({ ...recording.settings, target: { engine: 'sqlite', path } }, message => {
    if (message.type === 'done' && message.error !== undefined) throw new Error(message.error)
    if (message.type === 'error') throw new Error(message.message)
    if (message.type === 'done') written += message.written ?? 0
  })
  await service({ id: 0, type: 'prune', now: Date.now() })
  const start = mainThreadNs()
  for (const request of requests) await service(request)
  const ns = mainThreadNs() - start
  await service({ id: 0, type: 'close' })
  return { ns, written, path }
}

const decode = (buffers: Buffer[]): WriterRequest[] => buffers.map(buffer => deserialize(buffer) as WriterRequest)
await replay('warmup', decode(recording.requests.slice(0, warmupBatches)))
const measured = await replay('fresh', decode(recording.requests))
const bytes = statSync(measured.path).size + (statSync(`${measured.path}-wal`, { throwIfNoEntry: false })?.size ?? 0)
rmSync(dir, { recursive: true, force: true })
process.stdout.write(`${JSON.stringify({ profileUs: measured.ns / 1000 / measured.written, written: measured.written, bytesPerProfile: bytes / measured.written })}\n`)
