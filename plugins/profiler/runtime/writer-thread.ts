import { Worker } from 'node:worker_threads'
import { threadWithoutPreloads } from '../../../lib/thread-preloads.js'
import type { WriterMessage, WriterRequest, WriterSettings } from './writer-protocol.js'
import { PROFILER_THREAD_LIMITS } from '../thread-heap.js'
import { WriterClient } from './writer-client.js'

const WORKER_URL = new URL('./writer-worker.js', import.meta.url)
/** A writer thread that died is started again after 1 s, then 2, 4, ... 30 s while it keeps dying. */
const FIRST_RESTART_DELAY_MS = 1000
const MAX_RESTART_DELAY_MS = 30_000

/**
 * The writer in its own thread (writer-worker.ts): the default. A thread that ends without being
 * closed (an uncaught error, process.exit() in it, terminate(), out of memory) is started again
 * with a back-off; its open requests are answered as faults meanwhile, so the batch it held is
 * retried by the queue, and the store reports "failing" until a batch is written again.
 */
export class WriterThread extends WriterClient {
  private worker: Worker | null = null
  private closing = false
  private isBusy = false
  private restartTimer: NodeJS.Timeout | null = null
  private restartDelayMs = FIRST_RESTART_DELAY_MS
  private down: string | null = null

  constructor (private readonly settings: WriterSettings, onEvent: (message: WriterMessage) => void) {
    super('writer thread', onEvent)
    this.start()
  }

  protected send (request: WriterRequest): void {
    this.worker?.postMessage(request)
  }

  protected override busy (busy: boolean): void {
    this.isBusy = busy
    // An idle writer does not keep the process alive on its own (closing the app closes it);
    // while a request is open it does, or the process could end before the answer.
    if (busy) this.worker?.ref()
    else this.worker?.unref()
  }

  protected override unavailable (): string | null {
    return this.down
  }

  async close (): Promise<void> {
    // An 'exit' that has fired does not fire again: waiting for it hung app.close() for good.
    if (this.hasEnded) return
    this.closing = true
    const worker = this.worker
    if (worker === null) {
      if (this.restartTimer !== null) clearTimeout(this.restartTimer)
      this.end()
      return
    }
    const exited = new Promise(resolve => worker.once('exit', resolve))
    await this.request({ type: 'close' })
    worker.ref()
    await exited
  }

  private start (): void {
    this.down = null
    const worker = new Worker(WORKER_URL, { workerData: this.settings, resourceLimits: PROFILER_THREAD_LIMITS, ...threadWithoutPreloads() })
    let failure = ''
    worker.on('message', (message: WriterMessage) => {
      // A thread that writes again has lived through what killed the last one: back to 1 s.
      if (message.type === 'done' && message.error === undefined) this.restartDelayMs = FIRST_RESTART_DELAY_MS
      this.receive(message)
    })
    worker.on('error', err => { failure = `: ${err.message}` })
    worker.on('exit', code => { this.exited(code, failure) })
    if (!this.isBusy) worker.unref()
    this.worker = worker
  }

  private exited (code: number, failure: string): void {
    this.worker = null
    // A writer that is gone answers every open request: nothing waits forever.
    if (this.closing) {
      this.end()
      return
    }
    const delayMs = this.restartDelayMs
    this.restartDelayMs = Math.min(delayMs * 2, MAX_RESTART_DELAY_MS)
    this.down = `the writer thread ended (exit code ${code}${failure}); it is started again in ${delayMs / 1000} s`
    this.interrupt(this.down)
    this.report({ type: 'error', message: this.down })
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null
      this.start()
    }, delayMs)
    this.restartTimer.unref()
  }
}
