// The writer thread: runs the writer service (writer-service.ts) off the request thread, talking
// to the request thread's WriterThread (runtime/writer-thread.ts) through its port.
import { parentPort, workerData } from 'node:worker_threads'
import type { WriterRequest, WriterSettings } from '../runtime/writer-protocol.js'
import { startWriterService } from './writer-service.js'
import { nameThisThread } from '../profiler-thread.js'

const port = parentPort as NonNullable<typeof parentPort>
if (parentPort === null) throw new Error('writer-worker.ts runs as a worker thread')

// Named for `top -H`, `ps -L` and the benchmark's per-thread CPU table.
nameThisThread('profiler-writer')

const service = startWriterService(workerData as WriterSettings, message => { port.postMessage(message) })
port.on('message', async (request: WriterRequest) => {
  await service(request)
  if (request.type === 'close') port.close()
})
