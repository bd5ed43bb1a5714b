import type { WriterMessage, WriterRequest, WriterSettings } from './writer-protocol.js'
import { startWriterService, type WriterService } from './writer-service.js'
import { WriterClient } from './writer-client.js'

/**
 * The writer on the request thread (PROFILER_WRITER=inline): the same service as the writer
 * thread's, with its messages copied (structured clone, as postMessage does) and delivered on a
 * later turn of the event loop, as a thread's would be. The writer's work then counts against
 * the requests: for tests that are not about the thread, and for a CPU profile of one thread.
 */
export class InlineWriter extends WriterClient {
  private readonly service: WriterService

  constructor (settings: WriterSettings, onEvent: (message: WriterMessage) => void) {
    super('inline writer', onEvent)
    this.service = startWriterService(structuredClone(settings), message => {
      const copy = structuredClone(message)
      setImmediate(() => { this.receive(copy) })
    })
  }

  protected send (request: WriterRequest): void {
    const copy = structuredClone(request)
    setImmediate(async () => { await this.service(copy) })
  }

  async close (): Promise<void> {
    if (this.hasEnded) return
    await this.request({ type: 'close' })
    this.end()
  }
}
