// The alert rules file (PROFILER_ALERTS): read once at start and validated field by field, so that a
// bad rule stops the start with one line naming the rule and the field, as a bad variable does. The
// names and meanings of the fields are fixed (rule files written today keep working); unknown
// fields are refused, so that a misspelt one ("minRequest") is not silently ignored.
// Webhook URLs and secrets are never repeated in a message.
import { readFileSync } from 'node:fs'
import { durationMs, durationText } from '../duration.js'

const MEASURES = ['p50', 'p95', 'p99', '5xx', '4xx', 'count'] as const
export type Measure = typeof MEASURES[number]

export interface Webhook {
  name: string
  /** An http or https URL: never logged or shown (it may carry a token in its path). */
  url: string
  /** The HMAC key of X-Profiler-Signature: never logged or shown. */
  secret: string
  /** One attempt's bound (default 5 s). */
  timeoutMs: number
}

export interface AlertRule {
  name: string
  /** A route pattern, or '*': each route on its own. */
  route: string
  /** An HTTP method, or '*': each method on its own (the default). */
  method: string
  /** The deployment read (null: every deployment together); for a comparison, the one compared. */
  deployment: string | null
  /** A comparison: the deployment `deployment` is compared with (A, when `deployment` is B). */
  compareTo: string | null
  measure: Measure
  /**
   * Fires when the value is above this (ms for p50/p95/p99, a share for 5xx/4xx, requests for count;
   * for a comparison, `ratio`: B's value over A's), or, with `direction` 'below', below it.
   */
  threshold: number
  direction: 'above' | 'below'
  /** Resolves once the value is back below (above, for 'below') this; default the threshold. */
  resolve: number
  windowMs: number
  /** Fewer requests in the window (on either side of a comparison) tell nothing: no verdict. */
  minRequests: number
  pendingForMs: number
  repeatEveryMs: number
  /** Webhook names, each defined in `webhooks`. */
  notify: string[]
}

export interface AlertRules {
  evaluateEveryMs: number
  /** Where the profiler's pages are reached from outside (links in notifications); null: links are paths. */
  profilerUrl: string | null
  webhooks: Map<string, Webhook>
  rules: AlertRule[]
}

/** A rules file that cannot be used: `message` is one line (no URL or secret in it). */
export class AlertRulesError extends Error {}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const DEPLOYMENT = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/
const MAX_RULES = 200
const MAX_WEBHOOKS = 20
/** The longest window: minute rollups are read up to a day. */
const MAX_WINDOW_MS = 86_400_000
const MIN_EVALUATE_MS = 100

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Reads one object's fields, each checked once; `where` names it in messages (`rule "lookups failing"`). */
class Fields {
  private readonly seen = new Set<string>()
  constructor (private readonly object: Json, private readonly where: string) {}

  fail (field: string, rule: string): never {
    throw new AlertRulesError(`${this.where}: "${field}" ${rule}`)
  }

  has (field: string): boolean {
    this.seen.add(field)
    return Object.hasOwn(this.object, field) && this.object[field] !== undefined
  }

  raw (field: string): unknown {
    this.seen.add(field)
    return this.object[field]
  }

  string (field: string, pattern: RegExp, rule: string, fallback?: string): string {
    if (!this.has(field)) return fallback ?? this.fail(field, `is missing: it ${rule}`)
    const value = this.raw(field)
    if (typeof value !== 'string' || !pattern.test(value)) this.fail(field, rule)
    return value
  }

  duration (field: string, fallbackMs: number | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const rule = `must be a duration such as 500ms, 30s, 5m or 4h${min > 0 ? `, at least ${durationText(min)}` : ''}${max < Number.MAX_SAFE_INTEGER ? `, at most ${durationText(max)}` : ''}`
    if (!this.has(field)) return fallbackMs ?? this.fail(field, `is missing: it ${rule}`)
    const raw = this.raw(field)
    const ms = typeof raw === 'string' ? durationMs(raw) ?? NaN : NaN
    if (!(ms >= min && ms <= max)) this.fail(field, rule)
    return ms
  }

  number (field: string, rule: string, valid: (n: number) => boolean): number {
    const value = this.raw(field)
    if (typeof value !== 'number' || !Number.isFinite(value) || !valid(value)) this.fail(field, rule)
    return value
  }

  /** Refuses every field not read (a misspelt name, a field of another measure). */
  done (): void {
    const unknown = Object.keys(this.object).find(key => !this.seen.has(key))
    if (unknown !== undefined) throw new AlertRulesError(`${this.where}: unknown field "${unknown.slice(0, 64)}"`)
  }
}

function parseWebhook (name: string, value: unknown): Webhook {
  const where = `webhook "${name}"`
  if (!NAME.test(name)) throw new AlertRulesError(`webhooks: a webhook name must be up to 64 letters, digits, dots, dashes or underscores (got "${name.slice(0, 64)}")`)
  if (!isObject(value)) throw new AlertRulesError(`${where}: must be an object with "url" and "secret"`)
  const fields: Fields = new Fields(value, where)
  const url = fields.raw('url')
  let parsed: URL | null = null
  try { parsed = typeof url === 'string' ? new URL(url) : null } catch { parsed = null }
  // The URL is never repeated: it may carry the hook's token.
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) fields.fail('url', 'must be an http:// or https:// URL')
  const secret = fields.raw('secret')
  if (typeof secret !== 'string' || secret.length < 16) fields.fail('secret', 'must be a string of at least 16 characters')
  const timeoutMs = fields.duration('timeout', 5000, 100, 60_000)
  fields.done()
  return { name, url: parsed.href, secret, timeoutMs }
}

/** A threshold of `measure`: a duration for percentiles (`"800ms"`), a share from 0 to 1, a count of requests, or a ratio. */
function threshold (fields: Fields, field: string, measure: Measure, comparison: boolean): number {
  if (comparison) return fields.number(field, 'must be a ratio above 0 (1.5: B more than 1.5 times A)', n => n > 0)
  if (measure === '5xx' || measure === '4xx') return fields.number(field, 'must be a share from 0 to 1', n => n >= 0 && n <= 1)
  if (measure === 'count') return fields.number(field, 'must be a whole number of requests, 0 or more', n => Number.isSafeInteger(n) && n >= 0)
  return fields.duration(field, undefined, 0)
}

function parseRule (value: unknown, index: number, evaluateEveryMs: number, webhooks: Map<string, Webhook>): AlertRule {
  if (!isObject(value)) throw new AlertRulesError(`rules[${index}]: must be an object`)
  const named = typeof value.name === 'string' && NAME_TEXT.test(value.name) ? value.name : null
  const fields: Fields = new Fields(value, named === null ? `rules[${index}]` : `rule "${named}"`)
  const name = fields.string('name', NAME_TEXT, 'must be a name of 1 to 100 printable characters')
  const route = fields.string('route', /^(\*|\/[^\s]{0,2047})$/, 'must be a route pattern starting with "/", or "*" (each route)')
  const method = fields.string('method', /^(\*|[A-Z]{1,20})$/, 'must be an HTTP method in capitals (GET, POST), or "*" (each method)', '*')
  const deployment = fields.has('deployment') ? fields.string('deployment', DEPLOYMENT, 'must be a deployment name (as PROFILER_DEPLOYMENT)') : null
  const compareTo = fields.has('compareTo') ? fields.string('compareTo', DEPLOYMENT, 'must be a deployment name (as PROFILER_DEPLOYMENT)') : null
  if (compareTo !== null && deployment === null) fields.fail('deployment', 'is missing: a comparison compares "deployment" with "compareTo"')
  if (compareTo !== null && compareTo === deployment) fields.fail('compareTo', 'must name another deployment than "deployment"')
  const measure = fields.string('measure', /^(p50|p95|p99|5xx|4xx|count)$/, `must be one of ${MEASURES.join(', ')}`) as Measure
  const comparison = compareTo !== null
  let direction: AlertRule['direction'] = 'above'
  let limit: number
  if (comparison) {
    for (const field of ['above', 'below']) if (fields.has(field)) fields.fail(field, 'does not apply to a comparison: give "ratio"')
    if (!fields.has('ratio')) fields.fail('ratio', 'is missing: a comparison fires when "deployment" is more than "ratio" times "compareTo"')
    limit = threshold(fields, 'ratio', measure, true)
  } else {
    if (fields.has('ratio')) fields.fail('ratio', 'applies to a comparison only (with "compareTo")')
    const above = fields.has('above')
    const below = fields.has('below')
    if (below && measure !== 'count') fields.fail('below', 'applies to "count" only: other measures fire "above"')
    if (above === below) fields.fail('above', measure === 'count' ? 'or "below": give exactly one' : 'is missing: the threshold the value must exceed')
    direction = below ? 'below' : 'above'
    limit = threshold(fields, direction, measure, false)
  }
  let resolve = limit
  if (direction === 'above') {
    if (fields.has('resolveAbove')) fields.fail('resolveAbove', 'applies to "below" rules only')
    if (fields.has('resolveBelow')) resolve = threshold(fields, 'resolveBelow', measure, comparison)
    if (resolve > limit) fields.fail('resolveBelow', 'must not be above the threshold')
  } else {
    if (fields.has('resolveBelow')) fields.fail('resolveBelow', 'applies to "above" rules only')
    if (fields.has('resolveAbove')) resolve = threshold(fields, 'resolveAbove', measure, false)
    if (resolve < limit) fields.fail('resolveAbove', 'must not be below the threshold')
  }
  const windowMs = fields.duration('window', 300_000, 1000, MAX_WINDOW_MS)
  const minRequests = fields.has('minRequests') ? fields.number('minRequests', 'must be a whole number, 1 or more', n => Number.isSafeInteger(n) && n >= 1) : 20
  const pendingForMs = fields.duration('pendingFor', evaluateEveryMs, 0)
  const repeatEveryMs = fields.duration('repeatEvery', 4 * 3_600_000, Math.min(evaluateEveryMs, 1000))
  let notify: string[] = []
  if (fields.has('notify')) {
    const list = fields.raw('notify')
    if (!Array.isArray(list) || list.some(item => typeof item !== 'string')) fields.fail('notify', 'must be a list of webhook names')
    const missing = (list as string[]).find(item => !webhooks.has(item))
    if (missing !== undefined) fields.fail('notify', `names a webhook not defined in "webhooks": "${missing.slice(0, 64)}"`)
    notify = [...new Set(list as string[])]
  }
  fields.done()
  return { name, route, method, deployment, compareTo, measure, threshold: limit, direction, resolve, windowMs, minRequests, pendingForMs, repeatEveryMs, notify }
}

/** A rule's name: printable, no control character (it is shown on pages, in chat messages and log lines). */
const NAME_TEXT = /^[^\p{Cc}]{1,100}$/u

/** Validates a parsed rules file; throws AlertRulesError naming the first bad field. */
function parseAlertRules (value: unknown): AlertRules {
  if (!isObject(value)) throw new AlertRulesError('the file must hold a JSON object with "rules"')
  const fields: Fields = new Fields(value, 'the file')
  const evaluateEveryMs = fields.duration('evaluateEvery', 30_000, MIN_EVALUATE_MS, 3_600_000)
  let profilerUrl: string | null = null
  if (fields.has('profilerUrl')) {
    const text = fields.raw('profilerUrl')
    let parsed: URL | null = null
    try { parsed = typeof text === 'string' ? new URL(text) : null } catch { parsed = null }
    if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username !== '' || parsed.password !== '') {
      fields.fail('profilerUrl', 'must be the service\'s http:// or https:// URL (without credentials), for the links of notifications')
    }
    profilerUrl = parsed.origin + parsed.pathname.replace(/\/+$/, '')
  }
  const webhooks = new Map<string, Webhook>()
  if (fields.has('webhooks')) {
    const hooks = fields.raw('webhooks')
    if (!isObject(hooks)) fields.fail('webhooks', 'must be an object of named webhooks')
    const entries = Object.entries(hooks)
    if (entries.length > MAX_WEBHOOKS) fields.fail('webhooks', `must name ${MAX_WEBHOOKS} webhooks at most`)
    for (const [name, hook] of entries) webhooks.set(name, parseWebhook(name, hook))
  }
  const list = fields.raw('rules')
  if (!Array.isArray(list)) fields.fail('rules', 'must be a list of rules')
  if (list.length > MAX_RULES) fields.fail('rules', `must hold ${MAX_RULES} rules at most`)
  const rules = list.map((rule, index) => parseRule(rule, index, evaluateEveryMs, webhooks))
  const names = new Set<string>()
  for (const rule of rules) {
    if (names.has(rule.name)) throw new AlertRulesError(`rule "${rule.name}": "name" is used by another rule`)
    names.add(rule.name)
  }
  fields.done()
  return { evaluateEveryMs, profilerUrl, webhooks, rules }
}

/** Reads and validates the rules file at `path`; one-line AlertRulesError for anything wrong. */
export function loadAlertRules (path: string): AlertRules {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new AlertRulesError(`cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    // Not the parser's message: it quotes the text around the error, which may be a secret.
    throw new AlertRulesError('is not valid JSON')
  }
  return parseAlertRules(value)
}
