import type { QueuedProfile } from '../capture/capture.js'
import type { WriterMessage, WriterRequest } from './writer-protocol.js'
import { ThreadGone } from '../profiler-thread.js'

export type Done = Extract<WriterMessage, { type: 'done' }>
export type Outgoing = WriterRequest extends infer R ? R extends WriterRequest ? Omit<R, 'id'> : never : never
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
  constructor (private readonly onEvent: (message: WriterMessage) => void) {}

  async request (request: Outgoing): Promise<Done> {
    try {
      return await this.send(request)
    } catch (err) {
      // The writer is gone: for now (a fault, so the batch is retried), or for good (closed).
      if (err instanceof ThreadGone) return { type: 'done', id: 0, count: 0, error: err.message, ...(err.restarting ? { fault: true } : {}) }
      const reason = `could not be handed to the ${this.name}: ${(err as Error).message}`
      if (request.type === 'write') return await this.withoutUncopyable(request, reason)
      return { type: 'done', id: 0, count: 0, error: `the request ${reason}` }
    }
  }

  /** Closes the writer's database and waits for the writer to end (at once if it has ended already). */
  abstract close (): Promise<void>

  /** How its messages name it. */
  protected abstract get name (): string

  /**
   * Hands a request over (a copy of it) and resolves with its answer; rejects with a ThreadGone
   * when the writer is gone, or with the copy's error when it cannot be copied.
   */
  protected abstract send (request: Outgoing): Promise<Done>

  /** Hands every message of the writer (its answers too) and the client's own events (the writer thread gone) on. */
  protected report (message: WriterMessage): void {
    this.onEvent(message)
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
