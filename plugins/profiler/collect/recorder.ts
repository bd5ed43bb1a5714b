import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { requestOrigin } from '../../routing/request-origin.js'
import type { CollectContext, Collector } from './collectors/collector.js'
import { MAX_BODY_BYTES } from './collectors/request.js'
import type { Redactor } from '../../../lib/redact.js'
import type { ProfileStore } from '../store/profile-store.js'
import { uniqueToken } from './token.js'

/** What the profiler keeps about a request between its hooks. */
interface ProfileState {
  token: string
  /** scheme://host[:port] as the client addressed it. */
  origin: string
  handlerStartMs: number | null
  sendStartMs: number
  responseText: string | undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    profile: ProfileState | null
    profilerHandlerStartMs: number | null
  }
  interface FastifyContextConfig {
    /** false: this route's successful answers are not profiled (the profiler's own pages). */
    profile?: boolean
  }
}

export interface RecorderOptions {
  store: ProfileStore
  collectors: Collector[]
  production: boolean
  redactor: Redactor
  tokenSource?: () => string
}

/** IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are shown as IPv4. */
function clientIp (request: FastifyRequest): string {
  const ip = request.ip ?? ''
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip
}

function isJson (reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type')
  return typeof type === 'string' && /[/+]json\b/.test(type)
}

function parseResponseBody (text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Records every request: a token and the X-Debug-Token headers in onSend, the panels
 * in onResponse, queued for the store. Nothing here writes, waits or throws into a request.
 */
export function installRecorder (app: FastifyInstance, { store, collectors, production, redactor, tokenSource }: RecorderOptions): void {
  app.decorateRequest('profile', null)
  app.decorateRequest('profilerHandlerStartMs', null)

  app.addHook('preHandler', (request, reply, done) => {
    request.profilerHandlerStartMs = reply.elapsedTime
    done()
  })

  app.addHook('onSend', (request, reply, payload, done) => {
    // The profiler's own pages are not recorded, except their errors: probes and failed logins are.
    if (request.routeOptions.config.profile === false && reply.statusCode < 400) return done(null, payload)
    try {
      const token = uniqueToken(candidate => store.isTokenTaken(candidate), tokenSource)
      store.reserveToken(token)
      const origin = requestOrigin(request)
      request.profile = {
        token,
        origin,
        handlerStartMs: request.profilerHandlerStartMs,
        sendStartMs: reply.elapsedTime,
        responseText: typeof payload === 'string' && payload.length <= MAX_BODY_BYTES && isJson(reply) ? payload : undefined
      }
      reply.header('x-debug-token', token)
      reply.header('x-debug-token-link', `${origin}/_profiler/${token}`)
    } catch (err) {
      store.drop(`a request could not be profiled: ${(err as Error).message}`)
    }
    done(null, payload)
  })

  app.addHook('onResponse', (request, reply, done) => {
    const state = request.profile
    if (state === null) return done()
    try {
      const totalMs = reply.elapsedTime
      const context: CollectContext = {
        request,
        reply,
        url: redactor.url(state.origin + request.originalUrl),
        timings: { totalMs, handlerStartMs: state.handlerStartMs, sendStartMs: state.sendStartMs },
        responseBody: parseResponseBody(state.responseText),
        production,
        droppedProfiles: store.dropped,
        redactor
      }
      const panels: Record<string, unknown> = {}
      for (const collector of collectors) panels[collector.name] = collector.collect(context)
      store.enqueue({
        id: store.nextId(Date.now() - totalMs),
        token: state.token,
        parentToken: null,
        type: 'request',
        ip: clientIp(request),
        method: request.method,
        url: context.url,
        statusCode: reply.statusCode,
        durationMs: Math.round(totalMs * 1000) / 1000,
        route: request.is404 ? null : request.routeOptions.url ?? null,
        panels: JSON.stringify(panels)
      })
    } catch (err) {
      store.releaseToken(state.token)
      store.drop(`a profile could not be collected: ${(err as Error).message}`)
    }
    done()
  })
}
