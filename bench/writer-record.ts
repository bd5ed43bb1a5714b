// Records what the request thread hands the writer for the seed-like mix (writer-replay.ts): the app
// of this build with the profiler on and the inline writer, driven through app.inject(); every
// 'write' request is kept as the writer receives it (v8.serialize: the hook runs' buffer included)
// with the writer's settings, in one file, for the replays to feed to the writer service alone.
// Arguments: file, requests, requests between event-loop turns, PROFILER_SAMPLE (1 by default).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deserialize, serialize } from 'node:v8'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import { redactionRules } from '../lib/redact.js'
import { InlineWriter } from '../plugins/profiler/writer/inline-writer.js'
import type { WriterRequest, WriterSettings } from '../plugins/profiler/runtime/writer-protocol.js'
import { mixRequest } from './load.js'
import { randomSource } from './seed.js'

const [file = '', requestsArg = '20000', turnArg = '100', sampleArg = '1'] = process.argv.slice(2)
const requests = Number(requestsArg)
/** Requests between two turns of the event loop: the queue's 50 ms timer cuts the batches. */
const turnEvery = Number(turnArg)

const recorded: Buffer[] = []
const prototype = InlineWriter.prototype as unknown as { send: (request: WriterRequest) => Promise<unknown> }
const send = prototype.send
prototype.send = async function (this: unknown, request: WriterRequest) {
  if (request.type === 'write') recorded.push(serialize(request))
  return await send.call(this, request)
}

const dir = mkdtempSync(join(tmpdir(), 'bench-writer-record-'))
const config = loadConfig({
  NODE_ENV: 'development',
  LOG_LEVEL: 'silent',
  PROFILER: 'on',
  PROFILER_WRITER: 'inline',
  PROFILER_SAMPLE: sampleArg,
  DATABASE_PATH: join(dir, 'app.sqlite'),
  PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite'),
  MAX_EVENT_LOOP_DELAY: '0ms'
})
const app = await buildApp(config)
await app.ready()
const random = randomSource(7)
for (let i = 0; i < requests; i++) {
  const { method, path, body } = mixRequest('seed-like', random)
  await app.inject({ method, url: path, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: body }) })
  if (i % turnEvery === turnEvery - 1) await new Promise(resolve => setTimeout(resolve, 1))
}
await app.close()
rmSync(dir, { recursive: true, force: true })
const settings: Omit<WriterSettings, 'target'> = {
  deployment: 'bench',
  redaction: redactionRules(config),
  retention: { maxProfiles: config.profilerMaxProfiles, maxAgeMs: config.profilerMaxAgeMs, maxBytes: config.profilerMaxBytes, statsMaxAgeMs: config.profilerStatsMaxAgeMs },
  retentionIntervalMs: 1000,
  process: { configuration: {}, deployment: 'bench', startedAtMs: Date.now() }
}
writeFileSync(file, serialize({ settings, requests: recorded }))

process.stdout.write(`${JSON.stringify({ batches: recorded.length, bytes: recorded.reduce((sum, buffer) => sum + buffer.length, 0), profiles: recorded.reduce((sum, buffer) => sum + (deserialize(buffer) as { batch: unknown[] }).batch.length, 0) })}\n`)
