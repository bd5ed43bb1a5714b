// One replay (writer-replay.ts) in a child process of its own: the batches a recording holds
// (writer-record.ts) fed to the writer service of each build given, batch by batch in turn (the
// order alternating), each on a fresh SQLite store of its own, after a warm-up on other stores (the
// JIT warm, as in a server that has run a while). Taking turns a batch at a time, the builds share
// the machine's moments: the load moves them together. Prints one JSON line: per build, the main
// thread's CPU a stored profile (unpacking, shaping, the store's writes and retention) and the
// store's bytes a profile. The recorded requests are deserialised before the clock starts: the
// structured clone's cost is the hand-over's, not measured here.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { deserialize } from 'node:v8'
import type { WriterMessage, WriterRequest, WriterSettings } from '../plugins/profiler/runtime/writer-protocol.js'
import type { WriterService } from '../plugins/profiler/writer/writer-service.js'
import { mainThreadNs } from './thread-cpu.js'

const [file = '', warmupArg = '', ...roots] = process.argv.slice(2)
const warmupBatches = Number(warmupArg)
const recording = deserialize(readFileSync(file)) as { settings: Omit<WriterSettings, 'target'>, requests: Buffer[] }
const dir = mkdtempSync(join(tmpdir(), 'bench-writer-replay-'))

interface Replay { service: WriterService, path: string, written: number, ns: number }

async function start (root: string, name: string): Promise<Replay> {
  const { startWriterService } = await import(pathToFileURL(join(root, 'dist', 'plugins', 'profiler', 'writer', 'writer-service.js')).href) as { startWriterService: (settings: WriterSettings, send: (message: WriterMessage) => void) => WriterService }
  const replay: Replay = { service: async () => {}, path: join(dir, `${name}.sqlite`), written: 0, ns: 0 }
  replay.service = startWriterService({ ...recording.settings, target: { engine: 'sqlite', path: replay.path } }, message => {
    if (message.type === 'done' && message.error !== undefined) throw new Error(message.error)
    if (message.type === 'error') throw new Error(message.message)
    if (message.type === 'done') replay.written += message.written ?? 0
  })
  await replay.service({ id: 0, type: 'prune', now: Date.now() })
  return replay
}

/** Every build's service takes the batches in turn; each one's CPU is added up around its own calls. */
async function replayAll (name: string, batches: number): Promise<Replay[]> {
  const replays = await Promise.all(roots.map(async (root, index) => await start(root, `${name}-${index}`)))
  const requests = replays.map(() => recording.requests.slice(0, batches).map(buffer => deserialize(buffer) as WriterRequest))
  for (let batch = 0; batch < batches; batch++) {
    const order = batch % 2 === 0 ? replays.keys() : [...replays.keys()].reverse()
    for (const index of order) {
      const replay = replays[index] as Replay
      const started = mainThreadNs()
      await replay.service((requests[index] as WriterRequest[])[batch] as WriterRequest)
      replay.ns += mainThreadNs() - started
    }
  }
  for (const replay of replays) await replay.service({ id: 0, type: 'close' })
  return replays
}

await replayAll('warmup', warmupBatches)
const measured = await replayAll('fresh', recording.requests.length)
const results = measured.map(({ ns, written, path }) => ({
  profileUs: ns / 1000 / written,
  written,
  bytesPerProfile: (statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0)) / written
}))
rmSync(dir, { recursive: true, force: true })
process.stdout.write(`${JSON.stringify(results)}\n`)
