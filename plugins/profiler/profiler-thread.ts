// The request thread's side of the profiler's worker threads (the writer, SQLite's reader): one RPC
// for both. A thread is started with the profiler's heap limit and none of the process's preloads;
// calls carry ids and are answered by id; the thread keeps the process alive only while a call is
// open; a thread that ends without being closed is started again with a back-off.
import { Worker, type TransferListItem } from 'node:worker_threads'
import { readlinkSync, writeFileSync } from 'node:fs'
import { threadWithoutPreloads } from './thread-preloads.js'
import { PROFILER_THREAD_LIMITS } from './thread-heap.js'

/** A thread that died is started again after 1 s, then 2, 4, ... 30 s while it keeps dying. */
const FIRST_RESTART_DELAY_MS = 1000
const MAX_RESTART_DELAY_MS = 30_000

/**
 * A call its thread could not answer because the thread is gone: `restarting` while it is being
 * started again (the message says why and when: a fault, to retry), not after it was closed.
 */
export class ThreadGone extends Error {
  constructor (message: string, readonly restarting: boolean) {
    super(message)
    this.name = 'ThreadGone'
  }
}

/** Names the calling thread for `top -H` and `ps -L` (Linux; elsewhere it stays "node"): its thread id, or null. */
export function nameThisThread (name: string): number | null {
  try {
    writeFileSync('/proc/thread-self/comm', name)
    // /proc/thread-self links to <pid>/task/<tid>: a thread id is a pid to setpriority.
    return Number(readlinkSync('/proc/thread-self').split('/').pop())
  } catch {
    return null
  }
}

/**
 * Calls answered by id: whoever delivers the answers (a thread, or the request thread itself)
 * settles them. `busy` hears when the first call is opened and when the last one is settled.
 */
export class OpenCalls<Answer> {
  private readonly open = new Map<number, { resolve: (answer: Answer) => void, reject: (err: Error) => void }>()
  private nextId = 1

  constructor (private readonly busy: (busy: boolean) => void = () => {}) {}

  get size (): number {
    return this.open.size
  }

  /** Opens a call that `send` hands over with its id; if `send` throws, the call is not opened and rejects with that error. */
  call (send: (id: number) => void): Promise<Answer> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      if (this.open.size === 0) this.busy(true)
      this.open.set(id, { resolve, reject })
      try {
        send(id)
      } catch (err) {
        this.open.delete(id)
        if (this.open.size === 0) this.busy(false)
        reject(err)
      }
    })
  }

  answer (id: number, answer: Answer): void {
    const call = this.open.get(id)
    if (call === undefined) return
    this.open.delete(id)
    if (this.open.size === 0) this.busy(false)
    call.resolve(answer)
  }

  /** Every open call fails with `err`: nothing waits forever. */
  failAll (err: Error): void {
    const calls = [...this.open.values()]
    this.open.clear()
    if (calls.length > 0) this.busy(false)
    for (const call of calls) call.reject(err)
  }
}

export interface ThreadOptions<Message> {
  /** How its messages name it: "the writer thread ended ...". */
  name: string
  url: URL
  workerData: unknown
  /** The call `message` answers, or null (an event of the thread's own). */
  answerTo: (message: Message) => number | null
  /** Whether `message` shows the thread working: the back-off starts again from 1 s. */
  works: (message: Message) => boolean
  /** Every message (after the call it answers is settled), but the handshake. */
  onMessage?: (message: Message) => void
  /** The thread ended and is started again later, for `reason` (open calls have failed with it already). */
  onDown?: (reason: string) => void
  /**
   * The first message of each start, when the thread opens something first: the error that kept
   * it from starting, or null. The first start's error is the start's (see started); a later
   * one ends that thread, which is started again as if it had died.
   */
  handshake?: (message: Message) => Error | null
}

/**
 * A profiler worker thread and the calls to it. A thread that ends without being closed (an
 * uncaught error, process.exit() in it, terminate(), out of memory) fails its open calls with a
 * ThreadGone naming the end and the delay, and is started again after the delay; calls made
 * meanwhile fail at once with the same reason.
 */
export class ProfilerThread<Call, Message> {
  /** Settles with the first start: resolved when the thread is up (after its handshake), rejected if it could not start (the thread is then ended). */
  readonly started: Promise<void>
  private readonly calls = new OpenCalls<Message>(busy => { this.setRef(busy) })
  private worker: Worker | null = null
  private firstStart = true
  private closing = false
  private ended = false
  private down: string | null = null
  private restartTimer: NodeJS.Timeout | null = null
  private restartDelayMs = FIRST_RESTART_DELAY_MS
  private startedNow: (err: Error | null) => void = () => {}

  constructor (private readonly options: ThreadOptions<Message>) {
    this.started = new Promise((resolve, reject) => {
      this.startedNow = err => { if (err === null) resolve(); else reject(err) }
    })
    this.start()
  }

  /** Sends `call` with its id; resolves with the thread's answer, or rejects with a ThreadGone (or the error of a call that cannot be copied). */
  async call (call: Call, transfer?: readonly TransferListItem[]): Promise<Message> {
    if (this.ended) throw new ThreadGone(`the ${this.options.name} has ended`, false)
    if (this.down !== null) throw new ThreadGone(this.down, true)
    const worker = this.worker as Worker
    return await this.calls.call(id => { worker.postMessage({ ...call, id }, transfer) })
  }

  /** Closes the thread with `closeCall` (its answer or failure ignored) and waits until it has ended. */
  async close (closeCall: Call): Promise<void> {
    // An 'exit' that has fired does not fire again: waiting for it would hang app.close() for good.
    if (this.ended) return
    this.closing = true
    const worker = this.worker
    if (worker === null) {
      if (this.restartTimer !== null) clearTimeout(this.restartTimer)
      this.end()
      return
    }
    const exited = new Promise(resolve => worker.once('exit', resolve))
    await this.call(closeCall).catch(() => {})
    worker.ref()
    await exited
  }

  private setRef (busy: boolean): void {
    // An idle thread does not keep the process alive on its own (closing the app closes it); while
    // a call is open, or the first start is awaited, it does, or the process could end before the answer.
    if (busy || this.firstStart) this.worker?.ref()
    else this.worker?.unref()
  }

  private start (): void {
    this.down = null
    const { url, workerData, handshake } = this.options
    // The thread's modules load no TypeBox (the panels' schemas are apart from their code:
    // panels/panel-schemas.ts; test/profiler/thread-modules.test.ts keeps it so).
    const worker = new Worker(url, { workerData, resourceLimits: PROFILER_THREAD_LIMITS, ...threadWithoutPreloads() })
    let failure = ''
    let opening = handshake !== undefined
    worker.on('message', (message: Message) => {
      if (opening && handshake !== undefined) {
        opening = false
        const err = handshake(message)
        if (err !== null) {
          failure = `: ${err.message}`
          if (this.firstStart) this.closing = true
          this.ready(err)
          worker.terminate().catch(() => {})
        } else {
          this.ready(null)
        }
        return
      }
      this.received(message)
    })
    worker.on('error', err => { failure = `: ${err.message}` })
    worker.on('exit', code => { this.exited(code, failure) })
    this.worker = worker
    if (!opening) this.ready(null)
    this.setRef(this.calls.size > 0)
  }

  private ready (err: Error | null): void {
    if (!this.firstStart) return
    this.firstStart = false
    this.startedNow(err)
    this.setRef(this.calls.size > 0)
  }

  private received (message: Message): void {
    // A thread that works again has lived through what killed the last one: back to 1 s.
    if (this.options.works(message)) this.restartDelayMs = FIRST_RESTART_DELAY_MS
    const id = this.options.answerTo(message)
    if (id !== null) this.calls.answer(id, message)
    this.options.onMessage?.(message)
  }

  private exited (code: number, failure: string): void {
    this.worker = null
    if (this.firstStart) {
      // A thread that never started is not started again: its opener hears why (started).
      this.closing = true
      this.ready(new Error(`the ${this.options.name} ended (exit code ${code}${failure}) before it started`))
    }
    if (this.closing) {
      this.end()
      return
    }
    const delayMs = this.restartDelayMs
    this.restartDelayMs = Math.min(delayMs * 2, MAX_RESTART_DELAY_MS)
    this.down = `the ${this.options.name} ended (exit code ${code}${failure}); it is started again in ${delayMs / 1000} s`
    this.calls.failAll(new ThreadGone(this.down, true))
    this.options.onDown?.(this.down)
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null
      this.start()
    }, delayMs)
    this.restartTimer.unref()
  }

  private end (): void {
    this.ended = true
    this.calls.failAll(new ThreadGone(`the ${this.options.name} has ended`, false))
  }
}
