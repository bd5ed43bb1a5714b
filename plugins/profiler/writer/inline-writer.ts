import type { WriterMessage, WriterSettings } from '../runtime/writer-protocol.js'
import { startWriterService, type WriterService } from './writer-service.js'
import { OpenCalls, ThreadGone } from '../profiler-thread.js'
import { WriterClient, type Done, type Outgoing } from '../runtime/writer-client.js'

/**
 * The writer on the request thread (PROFILER_WRITER=inline): the same service as the writer
 * thread's, with its messages copied (structured clone, as postMessage does) and delivered on a
 * later turn of the event loop, as a thread's would be. The writer's work then counts against
 * the requests: for tests that are not about the thread, and for a CPU profile of one thread.
 */
export class InlineWriter extends WriterClient {
  private readonly service: WriterService
  private readonly calls = new OpenCalls<WriterMessage>()
  private ended = false

  constructor (settings: WriterSettings, onEvent: (message: WriterMessage) => void) {
    super(onEvent)
    this.service = startWriterService(structuredClone(settings), message => {
      const copy = structuredClone(message)
      setImmediate(() => {
        if (copy.type === 'done') this.calls.answer(copy.id, copy)
        this.report(copy)
      })
    })
  }

  protected get name (): string {
    return 'inline writer'
  }

  protected async send (request: Outgoing): Promise<Done> {
    if (this.ended) throw new ThreadGone(`the ${this.name} has ended`, false)
    return await this.calls.call(id => {
      const copy = structuredClone({ ...request, id })
      setImmediate(async () => { await this.service(copy) })
    }) as Done
  }

  async close (): Promise<void> {
    if (this.ended) return
    await this.request({ type: 'close' })
    this.ended = true
    this.calls.failAll(new ThreadGone(`the ${this.name} has ended`, false))
  }
}
