import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { WriterMessage, WriterRequest, WriterSettings } from './writer-protocol.js'

type Done = Extract<WriterMessage, { type: 'done' }>
type Pending = (message: Done) => void
type Outgoing = WriterRequest extends infer R ? R extends WriterRequest ? Omit<R, 'id'> : never : never

// The worker runs the same kind of file as this one: .js from dist/, .ts under the test runner.
const WORKER_URL = new URL(`./writer-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/** The request thread's handle on the writer thread: requests with answers, events for the rest. */
export class WriterClient {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private ended = false

  constructor (settings: WriterSettings, private readonly onEvent: (message: WriterMessage) => void) {
    this.worker = new Worker(WORKER_URL, { workerData: settings })
    this.worker.on('message', (message: WriterMessage) => {
      if (message.type === 'done') {
        this.pending.get(message.id)?.(message)
        this.pending.delete(message.id)
        if (this.pending.size === 0) this.worker.unref()
      }
      this.onEvent(message)
    })
    this.worker.on('error', err => { this.onEvent({ type: 'error', message: `the writer thread failed: ${err.message}` }) })
    // A writer that is gone answers every open request with an error: nothing waits forever.
    this.worker.on('exit', () => {
      this.ended = true
      for (const [id, resolve] of this.pending) resolve({ type: 'done', id, count: 0, error: 'the writer thread has ended' })
      this.pending.clear()
    })
    // An idle writer does not keep the process alive on its own (closing the app closes it);
    // while a request is open it does, or the process could end before the answer.
    this.worker.unref()
  }

  request (request: Outgoing): Promise<Done> {
    const id = this.nextId++
    if (this.ended) return Promise.resolve({ type: 'done', id, count: 0, error: 'the writer thread has ended' })
    return new Promise(resolve => {
      if (this.pending.size === 0) this.worker.ref()
      this.pending.set(id, resolve)
      this.worker.postMessage({ ...request, id })
    })
  }

  /** Closes the writer's database and waits for the thread to end. */
  async close (): Promise<void> {
    const exited = new Promise(resolve => this.worker.once('exit', resolve))
    await this.request({ type: 'close' })
    this.worker.ref()
    await exited
  }
}
