import type { WriterMessage, WriterRequest } from '../writer/protocol.js'

type Done = Extract<WriterMessage, { type: 'done' }>
type Pending = (message: Done) => void
type Outgoing = WriterRequest extends infer R ? R extends WriterRequest ? Omit<R, 'id'> : never : never

/**
 * The request thread's handle on the writer (writer/writer-service.ts): requests with answers,
 * events for the rest. Two ways to run it: WriterThread (its own thread, the default) and
 * InlineWriter (on the request thread, PROFILER_WRITER=inline). Both copy every message.
 */
export abstract class WriterClient {
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private ended = false

  constructor (private readonly name: string, private readonly onEvent: (message: WriterMessage) => void) {}

  request (request: Outgoing): Promise<Done> {
    const id = this.nextId++
    if (this.ended) return Promise.resolve(this.endedAnswer(id))
    return new Promise(resolve => {
      if (this.pending.size === 0) this.busy(true)
      this.pending.set(id, resolve)
      try {
        this.send({ ...request, id })
      } catch (err) {
        // A value that cannot be copied to the writer: this request fails, nothing hangs.
        this.pending.delete(id)
        if (this.pending.size === 0) this.busy(false)
        resolve({ type: 'done', id, count: 0, error: `the batch could not be handed to the ${this.name}: ${(err as Error).message}` })
      }
    })
  }

  /** Closes the writer's database and waits for the writer to end (at once if it has ended already). */
  abstract close (): Promise<void>

  /** Hands a request over (a copy of it); throws if it cannot be copied. */
  protected abstract send (request: WriterRequest): void

  /** Called when the first request is opened (true) and when the last one is answered (false). */
  protected busy (_busy: boolean): void {}

  protected get hasEnded (): boolean {
    return this.ended
  }

  protected receive (message: WriterMessage): void {
    if (message.type === 'done') {
      this.pending.get(message.id)?.(message)
      this.pending.delete(message.id)
      if (this.pending.size === 0) this.busy(false)
    }
    this.onEvent(message)
  }

  /** The writer is gone: every open request is answered with an error, and every later one. */
  protected end (): void {
    this.ended = true
    for (const [id, resolve] of this.pending) resolve(this.endedAnswer(id))
    this.pending.clear()
  }

  private endedAnswer (id: number): Done {
    return { type: 'done', id, count: 0, error: `the ${this.name} has ended` }
  }
}
