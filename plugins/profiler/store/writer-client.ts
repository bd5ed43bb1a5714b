import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { packageRoot } from '../../../paths.js'
import type { WriterMessage, WriterRequest, WriterSettings } from '../writer/protocol.js'

type Done = Extract<WriterMessage, { type: 'done' }>
type Pending = (message: Done) => void
type Outgoing = WriterRequest extends infer R ? R extends WriterRequest ? Omit<R, 'id'> : never : never

/**
 * The writer thread always runs compiled JavaScript: from dist/ beside this file, and from the
 * build when this file runs as TypeScript under the test runner (`npm test` builds first).
 * A worker inherits its parent's `execArgv`, and under the test runner that means the TypeScript
 * loader (ts-node, which loads the whole compiler): measured here 2.9-3.0 s per writer thread with
 * it, 0.2-0.6 s without, on a loaded machine. So a worker started from the sources gets no loader.
 */
function workerOf (): { url: URL, execArgv: string[] } {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.js')) return { url: new URL('../writer/worker.js', import.meta.url), execArgv: process.execArgv }
  const built = join(packageRoot, 'dist', 'plugins', 'profiler', 'writer', 'worker.js')
  if (!existsSync(built)) throw new Error(`the writer thread needs the build (${built}): run npm run build first`)
  return { url: pathToFileURL(built), execArgv: process.execArgv.filter(arg => !/^--(import|loader|experimental-loader)\b/.test(arg)) }
}
const WORKER = workerOf()

/** The request thread's handle on the writer thread: requests with answers, events for the rest. */
export class WriterClient {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private ended = false

  constructor (settings: WriterSettings, private readonly onEvent: (message: WriterMessage) => void) {
    this.worker = new Worker(WORKER.url, { workerData: settings, execArgv: WORKER.execArgv })
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
      try {
        this.worker.postMessage({ ...request, id })
      } catch (err) {
        // A value that cannot be copied to the writer thread: this request fails, nothing hangs.
        this.pending.delete(id)
        if (this.pending.size === 0) this.worker.unref()
        resolve({ type: 'done', id, count: 0, error: `the batch could not be handed to the writer thread: ${(err as Error).message}` })
      }
    })
  }

  /** Closes the writer's database and waits for the thread to end (at once if it has ended already). */
  async close (): Promise<void> {
    // An 'exit' that has fired does not fire again: waiting for it hung app.close() for good.
    if (this.ended) return
    const exited = new Promise(resolve => this.worker.once('exit', resolve))
    await this.request({ type: 'close' })
    this.worker.ref()
    await exited
  }
}
