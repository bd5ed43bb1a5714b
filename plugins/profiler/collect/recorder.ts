import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bodyPreview, bodySizeKnown, receivedBodyBytes, requestReceivedAt } from './body-size.js'
import { requestOrigin } from '../../routing/request-origin.js'
import { hasRejectedTarget, originFormTarget } from '../../routing/request-target.js'
import type { IncomingMessage } from 'node:http'
import { performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
import { captureError, profileDuration, type ActiveSpan } from '../capture/capture.js'
import { probesBeforeHandler, probesServerTiming, takeAll } from '../panels/probes.js'
import { MAX_BODY_BYTES, previewIfLarge, unparsedBody } from '../capture/body-preview.js'
import type { Redactor } from '../../../lib/redact.js'
import type { ProfileStore } from '../runtime/profile-store.js'
import { activeSpan } from './active-span.js'
import { keptByRule, sampleDraw, type SamplingOptions } from './sampling.js'
import type { KeepHeader } from './keep-header.js'

/** What the profiler keeps about a request between its hooks. */
interface ProfileState {
  token: string
  /** scheme://host[:port] as the client addressed it. */
  origin: string
  handlerStartMs: number | null
  sendStartMs: number
  /**
   * The request's start on performance.now()'s clock, which the panels' probes' times are on: read in
   * onSend, while Fastify's reply clock runs (elapsedTime stops when the response has finished).
   */
  originMs: number
  responseText: string | undefined
  /** The OpenTelemetry span the request runs in, read while its hooks run (null: none). */
  activeSpan: ActiveSpan | null
}

declare module 'fastify' {
  interface FastifyRequest {
    profile: ProfileState | null
    profilerHandlerStartMs: number | null
    /**
     * Whether the request is captured in full: the sample's draw (PROFILER_SAMPLE) kept it, or it
     * asks to be kept with the keep header (granted or not in onSend), made once: when the
     * request's logger is made (the logs panel's probe), else when first read (the timeline's hook
     * timing reads it at the first hook). The keep-rules may still keep a request not drawn.
     */
    readonly profilerSampled: boolean
    /** The draw once made (null: not yet); read it through profilerSampled. */
    profilerDrawn: boolean | null
    /** Not kept as a profile: recorded for the route statistics only (onResponse). */
    profilerStatisticsOnly: boolean
    /** request.routeOptions once read: Fastify's getter builds the object anew at each read. */
    profilerRouteOptions: FastifyRequest['routeOptions'] | null
  }
  interface FastifyContextConfig {
    /** false: this route's successful answers are not profiled (the profiler's own pages). */
    profile?: boolean
  }
}

export interface RecorderOptions {
  store: ProfileStore
  production: boolean
  /** The writer's redaction rules: a large body is redacted and previewed here (see capture/body-preview.ts). */
  redactor: Redactor
  tokenSource?: () => string
  /** Which requests are kept as profiles (PROFILER_SAMPLE and the keep-rules); the others feed the statistics only. */
  sampling: SamplingOptions
  /** The keep header's rules (keep-header.ts); null without PROFILER_SECRET: the header does nothing. */
  keep: KeepHeader | null
}

/** Whether a route matched: a rejected target (not a path) is routed as a path of its own only to reach the hooks. */
function routeMatched (request: FastifyRequest): boolean {
  return !request.is404 && !hasRejectedTarget(request)
}

/**
 * The request's route options, read from Fastify once (its getter builds a new object at every
 * read); a request's route does not change once routed (nothing here calls reply.callNotFound).
 */
function routeOptionsOf (request: FastifyRequest): FastifyRequest['routeOptions'] {
  return request.profilerRouteOptions ?? (request.profilerRouteOptions = request.routeOptions)
}

/**
 * The Server-Timing header of a profiled response: the panels' probes' entries (the database's
 * statements so far) and the time until the reply began (browsers' devtools and `curl -v` show them).
 */
function serverTiming (request: FastifyRequest, elapsedMs: number): string {
  return `${probesServerTiming(request)}app;dur=${elapsedMs.toFixed(3)}`
}

/**
 * The draw of a request, once made: whoever asks first (its logger's factory, or its first hook)
 * makes it. One number (one property a request): WON and ASKED bits, 0 when left out.
 */
const DRAWN = Symbol('profiler.drawn')
type DrawnMessage = IncomingMessage & { [DRAWN]?: number }
/** The sample's draw kept it. */
const WON = 1
/** It carries the keep header: captured in full until onSend says whether it is kept for it. */
const ASKED = 2

/** IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are shown as IPv4. */
export function displayIp (ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip
}

function isJson (reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type')
  return typeof type === 'string' && /[/+]json\b/.test(type)
}

/**
 * Records every request: a token and the X-Debug-Token headers in onSend, a plain capture in
 * onResponse, queued for the store; the writer thread redacts it and builds the panels
 * (writer/shape.ts). A request not kept (sampling.ts) gets neither token nor capture: only its
 * route, method, status, duration and start are queued, for the statistics. Nothing here writes
 * or throws into a request, and nothing waits but a request with the keep header (for the login
 * limiter's word, a few microtasks).
 */
export function installRecorder (app: FastifyInstance, { store, production, redactor, tokenSource, sampling, keep }: RecorderOptions): void {
  app.decorateRequest('profile', null)
  app.decorateRequest('profilerHandlerStartMs', null)
  app.decorateRequest('profilerStatisticsOnly', false)
  app.decorateRequest('profilerRouteOptions', null)
  const draw = sampleDraw(sampling)
  app.decorateRequest('profilerDrawn', null)
  // Made when the request's logger is made (the logs panel's probe), before any hook: a request
  // left out pays neither for capturing its log lines nor for timing its hooks. A request that
  // asks with the keep header is captured in full, its hook runs timed, whatever its value: the
  // secret is checked in onSend, through the login limiter (keep-header.ts), and until then a
  // right value and a wrong one cost the same.
  const drawRequest = (raw: DrawnMessage): boolean => {
    raw[DRAWN] ??= (draw() ? WON : 0) | (keep?.asked(raw.headers) === true ? ASKED : 0)
    return raw[DRAWN] !== 0
  }
  /** The request's draw (made now if not yet): WON and ASKED bits. */
  const drawOf = (request: FastifyRequest): number => {
    if (!request.profilerSampled) return 0
    return (request.raw as DrawnMessage)[DRAWN] ?? WON
  }
  app.decorate('profilerDraw', drawRequest)
  // Read back through a getter (drawn here when the logger made none).
  app.decorateRequest('profilerSampled', {
    getter (this: FastifyRequest): boolean {
      if (this.profilerDrawn === null) this.profilerDrawn = drawRequest(this.raw)
      return this.profilerDrawn
    }
  })

  app.addHook('preHandler', (request, reply, done) => {
    request.profilerHandlerStartMs = reply.elapsedTime
    // The probes that take what the handler does (the db panel's statements) start here.
    if (routeOptionsOf(request).config.profile !== false) probesBeforeHandler(request)
    done()
  })

  app.addHook('onSend', (request, reply, payload, done) => {
    // The profiler's own pages are not recorded, except their errors: probes and failed logins are.
    if (routeOptionsOf(request).config.profile === false && reply.statusCode < 400) return done(null, payload)
    const sendStartMs = reply.elapsedTime
    const drawn = drawOf(request)
    // Only a request with the keep header waits (a few microtasks) for the limiter's word. It returns
    // a promise of the payload: Fastify goes on with the onSend chain in a try/catch of its own, so a
    // throw there (a later hook's header writeHead refuses) is a 500, not an unhandled rejection
    // (calling done from this promise's callback ended the process).
    if (keep !== null && (drawn & ASKED) !== 0) {
      return keep.granted(request).then(
        granted => markKept(request, reply, payload, sendStartMs, (drawn & WON) !== 0 || granted),
        () => markKept(request, reply, payload, sendStartMs, (drawn & WON) !== 0))
    }
    done(null, markKept(request, reply, payload, sendStartMs, (drawn & WON) !== 0))
  })

  /**
   * Whether the request is kept (drawn, or by a rule), and if so its token and the X-Debug-Token
   * and Server-Timing headers; if not, it is marked for the statistics only. Returns the payload.
   */
  function markKept (request: FastifyRequest, reply: FastifyReply, payload: unknown, sendStartMs: number, drawn: boolean): unknown {
    try {
      // The service's own time: from the whole request received (its body's last byte) to its
      // answer handed to the connection. The client's upload is not in it (issue #37: a body sent
      // 1.1 s after its head made every request "slow"), nor the time after this, which is the
      // client reading the answer: a slow reader stretches it at will, so what is kept is decided
      // here and only here (onResponse no longer keeps a request "slow in the sending").
      const receivedAt = requestReceivedAt(request)
      const serviceMs = receivedAt === null ? null : sendStartMs - receivedAt
      if (!drawn && !keptByRule(reply.statusCode, request.renderedError !== null, serviceMs, sampling)) {
        // No token, no X-Debug-Token headers: nothing of it will be stored but its statistics.
        request.profilerStatisticsOnly = true
        return payload
      }
      // The reply's clock still runs: a reading of it and of performance.now() give its start.
      const state = keptState(request, sendStartMs, performance.now() - reply.elapsedTime, typeof payload === 'string' && payload.length <= MAX_BODY_BYTES && isJson(reply) ? payload : undefined)
      reply.header('x-debug-token', state.token)
      reply.header('x-debug-token-link', `${state.origin}/_profiler/${state.token}`)
      reply.header('server-timing', serverTiming(request, reply.elapsedTime))
    } catch (err) {
      store.drop(`a request could not be profiled: ${(err as Error).message}`)
      // Still counted in the statistics (issue 37), unless a profile of it is on its way after all.
      if (request.profile === null) request.profilerStatisticsOnly = true
    }
    return payload
  }

  /** A token for a request kept as a profile, and what onResponse needs of onSend. */
  function keptState (request: FastifyRequest, sendStartMs: number, originMs: number, responseText: string | undefined): ProfileState {
    const token = store.claimToken(tokenSource)
    request.profile = { token, origin: requestOrigin(request), handlerStartMs: request.profilerHandlerStartMs, sendStartMs, originMs, responseText, activeSpan: activeSpan(request) }
    return request.profile
  }

  /** A request not kept: its route, method, status, duration and start, for the route statistics (the same values a profile gives them). */
  function recordStatisticsOnly (request: FastifyRequest, statusCode: number, totalMs: number): void {
    try {
      store.enqueueStatistics(Math.floor(Date.now() - totalMs), request.method, routeMatched(request) ? routeOptionsOf(request).url ?? null : null, statusCode, profileDuration(totalMs))
    } catch (err) {
      store.dropStatistics(`a request could not be counted: ${(err as Error).message}`)
    }
  }

  app.addHook('onResponse', (request, reply, done) => {
    const state = request.profile
    const totalMs = reply.elapsedTime
    if (state === null && request.profilerStatisticsOnly) {
      // Not kept at onSend is not kept: the time since is the client's reading of the answer.
      recordStatisticsOnly(request, reply.statusCode, totalMs)
      return done()
    }
    if (state === null) return done()
    try {
      const statusCode = reply.statusCode
      const matched = routeMatched(request)
      const routeOptions = routeOptionsOf(request)
      const routeMethod = routeOptions.method
      const bodyBytes = receivedBodyBytes(request)
      // No bytes, no body (the handler saw `{}`); a large one as the store keeps it.
      const body = bodyBytes === 0 ? undefined : request.body
      const shapedBody = previewIfLarge(body, bodyBytes, redactor)
      // Bytes sent but no body parsed from them: what was kept of them, as sent.
      const preview = bodyBytes > 0 && body === undefined ? bodyPreview(request) : null
      // Values are taken as they are (references): the request is over, nothing changes them
      // before the batch is copied to the writer thread.
      store.enqueue({
        kind: 'capture',
        id: store.nextId(Date.now() - totalMs),
        token: state.token,
        ip: displayIp(request.ip ?? ''),
        method: request.method,
        rawUrl: state.origin + originFormTarget(request),
        statusCode,
        originMs: state.originMs,
        totalMs,
        handlerStartMs: state.handlerStartMs,
        sendStartMs: state.sendStartMs,
        route: matched ? routeOptions.url ?? null : null,
        matched: request.routingFailure !== null || !matched
          ? null
          : { route: routeOptions.url ?? null, method: Array.isArray(routeMethod) ? routeMethod.join(', ') : routeMethod },
        routingFailure: request.routingFailure,
        params: matched ? request.params ?? {} : {},
        query: request.query ?? {},
        body: shapedBody === undefined ? body : undefined,
        // Bytes as sent, for a truncated body's size.
        bodyBytes,
        shapedBody,
        unparsedBody: preview === null ? undefined : unparsedBody(preview, bodyBytes, bodySizeKnown(request)),
        requestHeaders: request.headers,
        responseHeaders: reply.getHeaders(),
        responseText: state.responseText,
        activeSpan: state.activeSpan,
        error: captureError(request.renderedError, statusCode >= 500 && !production),
        // V8's own figure: process.memoryUsage() also reads the RSS from /proc, ten times the cost.
        heapUsedBytes: getHeapStatistics().used_heap_size,
        droppedProfiles: store.dropped,
        // References: what is added to them after this hook (Fastify's "request completed" line,
        // the end of this hook's own run) is added before the batch leaves.
        taken: takeAll(request, reply)
      })
    } catch (err) {
      store.releaseToken(state.token)
      store.drop(`a profile could not be collected: ${(err as Error).message}`)
      // Its request is still counted in the statistics (issue 37).
      recordStatisticsOnly(request, reply.statusCode, totalMs)
    }
    done()
  })
}
