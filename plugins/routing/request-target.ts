import type { FastifyRequest, RawRequestDefaultExpression } from 'fastify'
import { HttpError } from '../../lib/http-error.js'
import { isValidHost } from './host.js'
import { escapeMalformedPath } from './malformed-url.js'

// The request target (RFC 9112 §3.2) as this service reads it. Only origin-form ("/path?query")
// is routed as it came. Absolute-form ("http://host/path", which a server must accept) is routed
// by its path and query; its authority must be the Host header's. Anything else (asterisk-form
// "*", authority-form, "*@127.0.0.2/x"...) is a 400. A target that is not a path is never glued
// onto the origin: such URLs pointed the profile's "Copy as cURL" and HAR at another host.

const TARGET = Symbol('request target')

interface TargetMark {
  /** The target as received. */
  raw: string
  /** The origin-form part the service reports and stores. */
  path: string
  /** What is wrong with it, when it is not accepted. */
  problem: string | null
}

type RawRequest = RawRequestDefaultExpression & { [TARGET]?: TargetMark }

const ABSOLUTE_FORM = /^(https?):\/\/([^/?#]*)(.*)$/is
const DEFAULT_PORT: Record<string, string> = { http: ':80', https: ':443' }

/** host[:port] in lower case without the scheme's default port. */
function comparableHost (host: string, scheme: string): string {
  const lower = host.toLowerCase()
  const port = DEFAULT_PORT[scheme] ?? ''
  return port !== '' && lower.endsWith(port) ? lower.slice(0, -port.length) : lower
}

function markOf (target: string, hostHeader: string | undefined): TargetMark {
  const absolute = ABSOLUTE_FORM.exec(target)
  if (absolute === null) {
    return {
      raw: target,
      // Made a path of this service: nothing in it can name another host.
      path: `/${target}`,
      problem: `The request target "${target}" is not origin-form: this service answers only a path starting with "/" (or an absolute http(s) URL of this service)`
    }
  }
  const [, scheme = '', authority = '', rest = ''] = absolute
  const path = rest === '' ? '/' : rest.startsWith('/') ? rest : `/${rest}`
  if (!isValidHost(authority)) {
    return { raw: target, path, problem: `The request target "${target}" names an invalid host "${authority}"` }
  }
  const normalScheme = scheme.toLowerCase()
  if (hostHeader !== undefined && comparableHost(authority, normalScheme) !== comparableHost(hostHeader, normalScheme)) {
    return { raw: target, path, problem: `The request target "${target}" names the host "${authority}", but the Host header is "${hostHeader}"` }
  }
  return { raw: target, path, problem: null }
}

/**
 * For Fastify's `rewriteUrl`: an origin-form target as it is (malformed percent-encodings escaped),
 * an absolute-form one by its path, anything else marked and routed as a path of its own (the
 * routing plugin answers it with a 400 before any handler).
 */
export function routableUrl (raw: RawRequest): string {
  const url = raw.url ?? '/'
  if (url.startsWith('/')) return escapeMalformedPath(raw, url)
  const mark = markOf(url, raw.headers.host)
  raw[TARGET] = mark
  return escapeMalformedPath(raw, mark.path)
}

/** The origin-form part of a target read outside Fastify (a request the HTTP parser rejected, CONNECT's authority). */
export function originFormOf (target: string, hostHeader: string | undefined): string {
  return target.startsWith('/') ? target : markOf(target, hostHeader).path
}

/** The origin-form target the service reports and stores: the path and query as received. */
export function originFormTarget (request: FastifyRequest): string {
  return (request.raw as RawRequest)[TARGET]?.path ?? request.originalUrl
}

/** Whether the target was not accepted (its request never reaches a route). */
export function hasRejectedTarget (request: FastifyRequest): boolean {
  const mark = (request.raw as RawRequest)[TARGET]
  return mark !== undefined && mark.problem !== null
}

/** The 400 of a target that is neither origin-form nor an absolute URL of this service. */
export function checkTarget (request: FastifyRequest): void {
  const problem = (request.raw as RawRequest)[TARGET]?.problem
  if (problem !== null && problem !== undefined) throw new HttpError(400, problem, { name: 'BadRequestError' })
}
