import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Redactor } from '../../../../lib/redact.js'

/** Phase times of one request, in milliseconds since Fastify received it. */
interface RequestTimings {
  totalMs: number
  /** Until the handler started (null when no handler ran: routing failures, body errors). */
  handlerStartMs: number | null
  /** Until the reply began to be sent. */
  sendStartMs: number
}

/** What a collector may read about one finished request. */
export interface CollectContext {
  request: FastifyRequest
  reply: FastifyReply
  /** The absolute request URL, secrets redacted. */
  url: string
  timings: RequestTimings
  /** The response body when it was JSON and small enough to keep, else undefined. */
  responseBody: unknown
  production: boolean
  droppedProfiles: number
  /** Every value taken from the request or the reply goes through it. */
  redactor: Redactor
}

/**
 * One profiler panel, after Symfony's DataCollector: turns a finished request into one plain,
 * JSON-serialisable object. Its template partial is templates/profiler/partials/panel-<name>.hbs.
 */
export interface Collector {
  name: string
  /** The label in the profile page's menu. */
  label: string
  collect: (context: CollectContext) => unknown
}
