import type { Redactor } from '../../../../lib/redact.js'
import type { RequestCapture } from '../capture.js'

/** What a collector may read about one finished request (in the writer thread, see shape.ts). */
export interface CollectContext {
  /** What the request thread captured, not yet redacted. */
  capture: RequestCapture
  /** The absolute request URL, secrets redacted. */
  url: string
  /** The response body when it was JSON and small enough to keep, else undefined. */
  responseBody: unknown
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
