import type { FastifyInstance, FastifyRequest } from 'fastify'
import { HttpError } from '../../../lib/http-error.js'

/**
 * At most `running` profiler page requests at a time, `waiting` more queued; past that a 503 with
 * Retry-After. The reads run in the reader thread, but each answer is still copied, serialised and
 * sent by the request thread: the bound keeps a crowd of clients on the costly pages from taking
 * that thread from the business routes (issue 20).
 */
export const PAGE_CONCURRENCY = { running: 2, waiting: 16, retryAfterSeconds: 1 }

const holding = new WeakSet<FastifyRequest>()

export function boundPageConcurrency (app: FastifyInstance, bound: typeof PAGE_CONCURRENCY): void {
  let running = 0
  const queue: Array<{ request: FastifyRequest, start: () => void }> = []
  const release = (request: FastifyRequest): void => {
    // A request that gave up while waiting leaves the queue.
    const waited = queue.findIndex(entry => entry.request === request)
    if (waited >= 0) queue.splice(waited, 1)
    if (!holding.delete(request)) return
    const next = queue.shift()
    if (next === undefined) running--
    else next.start()
  }
  app.addHook('onRequest', async (request, reply) => {
    if (running < bound.running) {
      running++
      holding.add(request)
      return
    }
    if (queue.length >= bound.waiting) {
      reply.header('retry-after', String(bound.retryAfterSeconds))
      throw new HttpError(503, `The profiler pages are busy (${bound.running} running, ${bound.waiting} waiting); try again in ${bound.retryAfterSeconds} s`, { name: 'ServiceUnavailableError' })
    }
    // The slot passes from the request that ends to the one that waited longest.
    await new Promise<void>(resolve => queue.push({ request, start: () => { holding.add(request); resolve() } }))
  })
  app.addHook('onResponse', async request => { release(request) })
  app.addHook('onRequestAbort', async request => { release(request) })
}
