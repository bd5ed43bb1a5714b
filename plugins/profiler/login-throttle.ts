// The failed logins of PROFILER_SECRET, counted per client address (issue #37; an IPv6 address by
// its /64), in one limiter wherever the secret is tried: the /_profiler pages' HTTP Basic password
// and the keep header (X-Profiler-Keep) alike, so the header is no way around the pages' limit.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** Wrong secrets allowed per client address (throttleAddress) and window before every try from that address is refused. */
export interface LoginRateLimit { maxFailures: number, windowMs: number }
const DEFAULT_LOGIN_RATE_LIMIT: LoginRateLimit = { maxFailures: 10, windowMs: 60_000 }

interface LoginThrottle {
  /** Seconds until the request's address may try the secret again (at least 1), or 0: it is not locked out. */
  lockedForSeconds: (request: FastifyRequest) => Promise<number>
  /** Counts a wrong secret against the request's address. */
  fail: (request: FastifyRequest) => Promise<void>
}

/** PROFILER_SECRET and the limiter its wrong tries count in: null when no secret is set. */
export interface SecretLogin { secret: string, throttle: LoginThrottle }

/**
 * The address failed logins are counted against: one the client cannot choose. With TRUST_PROXY
 * as a list of proxy addresses, Fastify's request.ip is the first hop, from the connection
 * backwards, that is not a listed proxy: the address the nearest listed proxy wrote, or the
 * connection's own. With TRUST_PROXY=on every X-Forwarded-For entry is believed, so request.ip is
 * whatever the client wrote first (rotating it escaped the limit): the connection's address is
 * counted instead (behind a proxy, the proxy's: list the proxy to count its clients one by one).
 */
function throttleAddress (request: FastifyRequest, trustProxy: FastifyInstance['config']['trustProxy']): string {
  return addressKey((Array.isArray(trustProxy) ? request.ip : request.raw.socket.remoteAddress) ?? '')
}

/**
 * The key an address is counted under: an IPv4 address as it is (an IPv4-mapped IPv6 one as its
 * IPv4), an IPv6 address by its /64, the block one host is given: rotating the low 64 bits (any
 * host can) does not make a new key.
 */
function addressKey (address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return mapped[1] as string
  if (!address.includes(':')) return address
  const bare = address.replace(/%.*$/, '').toLowerCase()
  const [head = '', tail] = bare.split('::')
  const groups = (text: string | undefined): string[] => text === undefined || text === '' ? [] : text.split(':')
  const before = groups(head)
  const after = groups(tail)
  // An IPv4 tail (::a.b.c.d forms) takes two groups.
  const width = (list: string[]): number => list.reduce((n, group) => n + (group.includes('.') ? 2 : 1), 0)
  const zeros = tail === undefined ? [] : Array<string>(Math.max(0, 8 - width(before) - width(after))).fill('0')
  const prefix = [...before, ...zeros, ...after].slice(0, 4).map(group => group.includes('.') ? group : (Number.parseInt(group, 16) || 0).toString(16))
  return `${prefix.join(':')}::/64`
}

/**
 * The profiler's login limiter (@fastify/rate-limit's, registered in a context of its own so that
 * it adds nothing to any route): past `maxFailures` wrong secrets from an address in the window,
 * that address is locked out until the window has passed, of the pages and of the keep header.
 */
export async function createLoginThrottle (app: FastifyInstance, limit: LoginRateLimit = DEFAULT_LOGIN_RATE_LIMIT): Promise<LoginThrottle> {
  const trustProxy = app.config.trustProxy
  let limiter: FastifyInstance['createRateLimit'] | undefined
  await app.register(async scope => {
    await scope.register(rateLimit, { global: false })
    limiter = scope.createRateLimit
  })
  if (limiter === undefined) throw new Error('the login limiter could not be made')
  const failures = limiter({
    max: limit.maxFailures,
    timeWindow: limit.windowMs,
    keyGenerator: request => throttleAddress(request, trustProxy)
  })
  return {
    async lockedForSeconds (request) {
      const state = await failures(request, { increment: false })
      if (state.isAllowed || state.remaining > 0) return 0
      return Math.max(1, state.ttlInSeconds)
    },
    async fail (request) {
      await failures(request)
    }
  }
}
