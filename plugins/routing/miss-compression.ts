// The answers to routing misses (404, 405, 301 for an unknown path or method), compressed as every
// route's answers are: an HTML 404 or 405 page is ~5.6 KB (~2 KB gzipped), above the 1 KiB
// threshold. @fastify/compress gives each route its onSend hook as the route is added (onRoute);
// misses are answered by Fastify's not-found handler, which is no route, so they went uncompressed.
import compress, { type FastifyCompressOptions } from '@fastify/compress'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err?: Error | null, payload?: unknown) => void) => void

/**
 * The onSend hook @fastify/compress gives a route with these options, built by the plugin itself:
 * for a route of a throwaway instance, read back by an onRoute hook that runs after the plugin's.
 */
async function routeCompressionHook (options: FastifyCompressOptions): Promise<OnSend> {
  const probe = Fastify({ exposeHeadRoutes: false })
  await probe.register(compress, options)
  const hooks: unknown[] = []
  probe.addHook('onRoute', route => { hooks.push(...[route.onSend ?? []].flat()) })
  probe.get('/', async () => '')
  await probe.ready()
  await probe.close()
  const [hook] = hooks
  // A plugin that no longer compresses through a route hook fails the start, not the pages.
  if (hooks.length !== 1 || typeof hook !== 'function') throw new Error('@fastify/compress gave a route no single onSend hook')
  return hook as OnSend
}

/** Registered after every app-level onSend hook that reads the answer (the profiler's): misses only, matched routes have their own. */
export default fp<FastifyCompressOptions>(async function missCompressionPlugin (app, options) {
  const compressMiss = await routeCompressionHook(options)
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.is404) return done(null, payload)
    compressMiss(request, reply, payload, done)
  })
}, { name: 'miss-compression', dependencies: ['@fastify/compress', 'routing-errors'] })
