import type { FastifyReply, FastifyRequest } from 'fastify'

/** What every profiler page gives the layout: no indexing, the profiler's heading and its header links. */
const PAGE = { noindex: true, heading: 'Profiler', homeHref: '/_profiler/', profilerNav: true }

/** Pages answer HTML unless the client asks for JSON. */
export function wantsJson (request: FastifyRequest): boolean {
  return request.accepts().type(['text/html', 'application/json']) === 'application/json'
}

/** A profiler page in the layout. */
export async function html (reply: FastifyReply, page: string, model: Record<string, unknown>): Promise<FastifyReply> {
  const body = await reply.viewAsync(page, { ...PAGE, ...model })
  return reply.type('text/html; charset=utf-8').send(body)
}
