import type { QueuedProfile } from '../profile.js'
import type { WriterMessage, WriterRequest } from './writer-protocol.js'

type Done = Extract<WriterMessage, { type: 'done' }>
type Pending = (message: Done) => void
type Outgoing = WriterRequest extends infer R ? R extends WriterRequest ? Omit<R, 'id'> : never : never
type SetAside = NonNullable<Done['unshaped']>[number]

/** Whether a profile can be copied to the writer (postMessage's structured clone). */
function isCopyable (profile: QueuedProfile): boolean {
  try {
    structuredClone(profile)
    return true
  } catch {
    return false
  }
}

/**
 * The request thread's handle on the writer (writer-service.ts): requests with answers,
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
    const down = this.unavailable()
    if (down !== null) return Promise.resolve({ type: 'done', id, count: 0, error: down, fault: true })
    return new Promise(resolve => {
      if (this.pending.size === 0) this.busy(true)
      this.pending.set(id, resolve)
      try {
        this.send({ ...request, id })
      } catch (err) {
        this.pending.delete(id)
        if (this.pending.size === 0) this.busy(false)
        const reason = `could not be handed to the ${this.name}: ${(err as Error).message}`
        if (request.type === 'write') resolve(this.withoutUncopyable(request, reason))
        else resolve({ type: 'done', id, count: 0, error: `the request ${reason}` })
      }
    })
  }

  /** Closes the writer's database and waits for the writer to end (at once if it has ended already). */
  abstract close (): Promise<void>

  /** Hands a request over (a copy of it); throws if it cannot be copied. */
  protected abstract send (request: WriterRequest): void

  /** Called when the first request is opened (true) and when the last one is answered (false). */
  protected busy (_busy: boolean): void {}

  /** Why the writer cannot take requests now (it is being started again), or null. */
  protected unavailable (): string | null {
    return null
  }

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

  /** Reports an event of the client's own (the writer thread gone, started again). */
  protected report (message: WriterMessage): void {
    this.onEvent(message)
  }

  /** The writer is gone for now: every open request is answered with `reason`, as a fault (retried). */
  protected interrupt (reason: string): void {
    for (const [id, resolve] of this.pending) resolve({ type: 'done', id, count: 0, error: reason, fault: true })
    this.pending.clear()
    this.busy(false)
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

  /**
   * A batch that could not be copied: the profiles that cannot be are set aside (answered as
   * such, like the writer's own set-asides) and the rest is sent again; one profile never costs
   * the batch, and an error answer always means the batch is to be retried.
   */
  private async withoutUncopyable (request: Extract<Outgoing, { type: 'write' }>, reason: string): Promise<Done> {
    const { batch } = request
    const setAside: SetAside[] = []
    const copyable = batch.filter(profile => {
      if (isCopyable(profile)) return true
      setAside.push({ token: profile.token, reason: `profile ${profile.token} could not be written: it ${reason}` })
      return false
    })
    if (setAside.length === 0) return { type: 'done', id: 0, count: 0, error: `the batch ${reason}`, fault: true }
    const answer = await this.request({ ...request, batch: copyable })
    const unshaped = [...answer.unshaped ?? [], ...setAside]
    // On an error the copyable ones are retried (all, unless the writer settled some).
    return answer.error === undefined ? { ...answer, unshaped } : { ...answer, unshaped, retry: answer.retry ?? copyable.map(profile => profile.token) }
  }
}
