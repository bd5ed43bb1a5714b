// The writer thread: owns the store's write connection, writes the batches the request thread
// sends, and prunes in the background. Nothing here runs on the request thread.
// The store is opened lazily: a store that cannot be opened yet (a read-only or missing folder)
// fails each write with its reason until it can, and then works like any other.
import { writeFileSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { isStorageFault } from '../../../lib/sqlite/faults.js'
import { openProfileDatabase } from '../store/open-store.js'
import { ProfileWriter } from './profile-writer.js'
import { Retention } from './retention.js'
import type { WriterMessage, WriterRequest, WriterSettings } from './protocol.js'

const port = parentPort
if (port === null) throw new Error('writer/worker.ts runs as a worker thread')
const settings = workerData as WriterSettings
const send = (message: WriterMessage): void => { port.postMessage(message) }

// Named for `top -H`, `ps -L` and the benchmark's per-thread CPU table (Linux; elsewhere it stays "node").
try {
  writeFileSync('/proc/thread-self/comm', 'profiler-writer')
} catch {}

let store: { writer: ProfileWriter, retention: Retention, close: () => void } | null = null

function openStore (): { writer: ProfileWriter, retention: Retention } {
  if (store !== null) return store
  const { db } = openProfileDatabase(settings.databasePath, settings.busyTimeoutMs)
  const writer = new ProfileWriter(db, tokens => { send({ type: 'deleted', tokens, count: writer.count }) })
  const retention = new Retention(writer, settings.retention, err => { send({ type: 'error', message: `pruning failed: ${(err as Error).message}` }) })
  retention.start(settings.retentionIntervalMs)
  store = { writer, retention, close: () => { retention.stop(); db.close() } }
  return store
}

try {
  openStore()
} catch (err) {
  send({ type: 'error', message: (err as Error).message })
}

port.on('message', (request: WriterRequest) => {
  try {
    switch (request.type) {
      case 'write': {
        const { writer } = openStore()
        const { written, rejected } = writer.write(request.batch)
        send({ type: 'done', id: request.id, count: writer.count, written, rejected })
        break
      }
      case 'prune': {
        const { writer, retention } = openStore()
        retention.runUntilWithinBounds(request.now)
        send({ type: 'done', id: request.id, count: writer.count })
        break
      }
      case 'close':
        store?.close()
        send({ type: 'done', id: request.id, count: store?.writer.count ?? 0 })
        port.close()
        break
    }
  } catch (err) {
    send({ type: 'done', id: request.id, count: store?.writer.count ?? 0, error: (err as Error).message, fault: isStorageFault(err) })
  }
})
