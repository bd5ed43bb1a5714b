import type { Worker } from 'node:worker_threads'
import type { Test } from 'tap'

/** The worker threads this process starts from now until `t` ends, in order, as Node announces them (its 'worker' event). */
export function startedWorkers (t: Test): Worker[] {
  const workers: Worker[] = []
  const seen = (worker: Worker): void => { workers.push(worker) }
  process.on('worker', seen)
  t.teardown(() => { process.off('worker', seen) })
  return workers
}
