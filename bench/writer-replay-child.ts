// One replay (writer-replay.ts) in a child process of its own: the batches a recording holds
// (writer-record.ts) fed to the writer service of each build given, batch by batch in turn (the
// order alternating), each on a fresh SQLite store of its own, after a warm-up on other stores (the
// JIT warm, as in a server that has run a while). Taking turns a batch at a time, the builds share
// the machine's moments: the load moves them together. Prints one JSON line: per build, the main
// thread's CPU a stored profile (unpacking, shaping, the store's writes and retention) and the
// store's bytes a profile. The recorded requests are deserialised before the clock starts: the
// structured clone's cost is the hand-over's, not measured here.
// With an OTLP sink's URL (--otlp=<url>), each build runs two services in the turn: one without the
// export and one with it (issue 39), so that each build's export cost is its two services' difference
// in the same moments. The event loop takes a turn after each batch (untimed): the exporter's timers
// and the sink's answers run there, so a request's posting is not counted, only offering and encoding.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { deserialize } from 'node:v8'
import type { WriterMessage, WriterRequest, WriterSettings } from '../plugins/profiler/runtime/writer-protocol.js'
import type { WriterService } from '../plugins/profiler/writer/writer-service.js'
import type { ExportSettings } from '../plugins/profiler/export/otlp/profile-export.js'
import type { ExportState } from '../plugins/profiler/export/otlp/exporter.js'
import { mainThreadNs } from './thread-cpu.js'

const otlpArg = process.argv.find(arg => arg.startsWith('--otlp='))
const [file = '', warmupArg = '', ...roots] = process.argv.slice(2).filter(arg => !arg.startsWith('--'))
const warmupBatches = Number(warmupArg)
const recording = deserialize(readFileSync(file)) as { settings: Omit<WriterSettings, 'target'>, requests: Buffer[] }
const dir = mkdtempSync(join(tmpdir(), 'bench-writer-replay-'))

interface Replay { service: WriterService, path: string, written: number, ns: number, export: ExportState | null, exporting: { ns: number } | null }

/**
 * Each build's CPU inside its exporter's offer() (the spans built and encoded, queued) and post()
 * (up to the request's write; the answer is read later, uncounted): the export path alone, apart
 * from the store's work and its noise. Its garbage may be collected outside, which only the
 * difference between the two services of a build counts.
 */
const exportNs = new Map<string, { ns: number }>()

type Timed = Record<'offer' | 'post', (this: unknown, ...args: unknown[]) => unknown>

async function timeExport (root: string): Promise<{ ns: number }> {
  let counter = exportNs.get(root)
  if (counter !== undefined) return counter
  const made = { ns: 0 }
  exportNs.set(root, made)
  const { OtlpExporter } = await import(pathToFileURL(join(root, 'dist', 'plugins', 'profiler', 'export', 'otlp', 'exporter.js')).href) as { OtlpExporter: { prototype: Timed } }
  for (const method of ['offer', 'post'] as const) {
    const original = OtlpExporter.prototype[method]
    OtlpExporter.prototype[method] = function (this: unknown, ...args: unknown[]) {
      const started = mainThreadNs()
      try {
        return original.apply(this, args)
      } finally {
        made.ns += mainThreadNs() - started
      }
    }
  }
  counter = made
  return counter
}

/** The export's settings for a build (its own default tuning), to the sink given: protobuf, as by default. */
async function exportSettings (root: string, url: string): Promise<ExportSettings> {
  const { DEFAULT_EXPORT_TUNING } = await import(pathToFileURL(join(root, 'dist', 'plugins', 'profiler', 'export', 'otlp', 'exporter.js')).href) as { DEFAULT_EXPORT_TUNING: ExportSettings['tuning'] }
  return {
    otlp: { url: `${url}/v1/traces`, protocol: 'http/protobuf', headers: {}, timeoutMs: 10_000, resource: { 'service.name': 'bench', 'service.version': '0.1.0', 'deployment.environment.name': 'bench' } },
    // The replay hands over profiles faster than a server at 2,000 req/s: a queue bound that drops none.
    tuning: { ...DEFAULT_EXPORT_TUNING, maxQueueBytes: 1024 * 1024 * 1024 },
    scope: { name: 'profiled-api-profiler', version: '0.1.0' }
  }
}

async function start (root: string, name: string, exporting: boolean): Promise<Replay> {
  const { startWriterService } = await import(pathToFileURL(join(root, 'dist', 'plugins', 'profiler', 'writer', 'writer-service.js')).href) as { startWriterService: (settings: WriterSettings, send: (message: WriterMessage) => void) => WriterService }
  const replay: Replay = { service: async () => {}, path: join(dir, `${name}.sqlite`), written: 0, ns: 0, export: null, exporting: exporting ? await timeExport(root) : null }
  const exported = exporting && otlpArg !== undefined ? { export: await exportSettings(root, otlpArg.slice('--otlp='.length)) } : {}
  replay.service = startWriterService({ ...recording.settings, ...exported, target: { engine: 'sqlite', path: replay.path } }, message => {
    if (message.type === 'done' && message.error !== undefined) throw new Error(message.error)
    if (message.type === 'error') throw new Error(message.message)
    if (message.type === 'done') replay.written += message.written ?? 0
    if (message.type === 'export') replay.export = message.state
  })
  await replay.service({ id: 0, type: 'prune', now: Date.now() })
  return replay
}

/** Every build's service takes the batches in turn; each one's CPU is added up around its own calls. */
async function replayAll (name: string, batches: number): Promise<Replay[]> {
  // Without the export: one service a build; with it, two a build (without, with), side by side.
  const services = roots.flatMap((root, index) => otlpArg === undefined ? [{ root, name: `${name}-${index}`, exporting: false }] : [{ root, name: `${name}-${index}`, exporting: false }, { root, name: `${name}-${index}-otlp`, exporting: true }])
  const replays = await Promise.all(services.map(async ({ root, name, exporting }) => await start(root, name, exporting)))
  const requests = replays.map(() => recording.requests.slice(0, batches).map(buffer => deserialize(buffer) as WriterRequest))
  for (const counter of exportNs.values()) counter.ns = 0
  for (let batch = 0; batch < batches; batch++) {
    const order = batch % 2 === 0 ? replays.keys() : [...replays.keys()].reverse()
    for (const index of order) {
      const replay = replays[index] as Replay
      const started = mainThreadNs()
      await replay.service((requests[index] as WriterRequest[])[batch] as WriterRequest)
      replay.ns += mainThreadNs() - started
    }
    if (otlpArg !== undefined) await new Promise(resolve => setImmediate(resolve))
  }
  for (const replay of replays) await replay.service({ id: 0, type: 'close' })
  return replays
}

await replayAll('warmup', warmupBatches)
const measured = await replayAll('fresh', recording.requests.length)
const results = measured.map(({ ns, written, path, export: exported, exporting }) => ({
  profileUs: ns / 1000 / written,
  written,
  ...(exported === null ? {} : { exportedSpans: exported.exportedSpans, droppedSpans: exported.droppedSpans }),
  ...(exporting === null ? {} : { exportUs: exporting.ns / 1000 / written }),
  bytesPerProfile: (statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0)) / written
}))
rmSync(dir, { recursive: true, force: true })
process.stdout.write(`${JSON.stringify(results)}\n`)
