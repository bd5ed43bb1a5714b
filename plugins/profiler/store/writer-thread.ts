import { Worker } from 'node:worker_threads'
import type { WriterMessage, WriterRequest, WriterSettings } from '../writer/protocol.js'
import { WriterClient } from './writer-client.js'

const WORKER_URL = new URL('../writer/worker.js', import.meta.url)

/** The writer in its own thread (writer/worker.ts): the default. */
export class WriterThread extends WriterClient {
  private readonly worker: Worker

  constructor (settings: WriterSettings, onEvent: (message: WriterMessage) => void) {
    super('writer thread', onEvent)
    this.worker = new Worker(WORKER_URL, { workerData: settings })
    this.worker.on('message', (message: WriterMessage) => { this.receive(message) })
    this.worker.on('error', err => { onEvent({ type: 'error', message: `the writer thread failed: ${err.message}` }) })
    // A writer that is gone answers every open request with an error: nothing waits forever.
    this.worker.on('exit', () => { this.end() })
    // An idle writer does not keep the process alive on its own (closing the app closes it);
    // while a request is open it does, or the process could end before the answer.
    this.worker.unref()
  }

  protected send (request: WriterRequest): void {
    this.worker.postMessage(request)
  }

  protected override busy (busy: boolean): void {
    if (busy) this.worker.ref()
    else this.worker.unref()
  }

  async close (): Promise<void> {
    // An 'exit' that has fired does not fire again: waiting for it hung app.close() for good.
    if (this.hasEnded) return
    const exited = new Promise(resolve => this.worker.once('exit', resolve))
    await this.request({ type: 'close' })
    this.worker.ref()
    await exited
  }
}
