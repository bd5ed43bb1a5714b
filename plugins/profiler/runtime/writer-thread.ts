import type { WriterMessage, WriterSettings } from './writer-protocol.js'
import { ProfilerThread } from '../profiler-thread.js'
import { WriterClient, type Done, type Outgoing } from './writer-client.js'

/**
 * The writer in its own thread (writer/writer-worker.ts): the default. A thread that ends without being
 * closed is started again with a back-off (profiler-thread.ts); its open requests are answered as
 * faults meanwhile, so the batch it held is retried by the queue, and the store reports "failing"
 * until a batch is written again.
 */
export class WriterThread extends WriterClient {
  private readonly thread: ProfilerThread<Outgoing, WriterMessage>

  constructor (settings: WriterSettings, onEvent: (message: WriterMessage) => void) {
    super(onEvent)
    this.thread = new ProfilerThread<Outgoing, WriterMessage>({
      name: this.name,
      url: new URL('../writer/writer-worker.js', import.meta.url),
      workerData: settings,
      answerTo: message => message.type === 'done' ? message.id : null,
      works: message => message.type === 'done' && message.error === undefined,
      onMessage: message => { this.report(message) },
      onDown: reason => { this.report({ type: 'error', message: reason }) }
    })
  }

  protected get name (): string {
    return 'writer thread'
  }

  protected async send (request: Outgoing): Promise<Done> {
    // The batch's hook runs are moved, not copied: the queue packs them again if it is retried.
    const transfer = request.type === 'write' && request.runs !== undefined ? [request.runs.slab.buffer] : undefined
    return await this.thread.call(request, transfer) as Done
  }

  async close (): Promise<void> {
    await this.thread.close({ type: 'close' })
  }
}
