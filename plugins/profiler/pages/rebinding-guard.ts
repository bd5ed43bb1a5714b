import { BlockList, isIPv4, isIPv6 } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { HttpError } from '../../../lib/http-error.js'
import { hostName } from '../../routing/host.js'

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/** localhost (and its subdomains, RFC 6761), 127.0.0.0/8, [::1]: names only this machine answers to. */
function isLoopbackName (name: string): boolean {
  const bare = name.replace(/\.$/, '')
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIPv4(bare)) return LOOPBACK.check(bare, 'ipv4')
  const inner = bare.startsWith('[') && bare.endsWith(']') ? bare.slice(1, -1) : ''
  return isIPv6(inner) && LOOPBACK.check(inner, 'ipv6')
}

/**
 * DNS rebinding: a page in the developer's browser, served from a name the attacker then points
 * at 127.0.0.1, may read an open profiler (the browser calls it same-origin). It still sends its
 * own name as Host: without a secret, the pages answer only loopback names (and TRUSTED_HOSTS,
 * which routing-errors has enforced already when set).
 */
export function guardAgainstRebinding (app: FastifyInstance): void {
  if (app.config.trustedHosts.length > 0) return
  app.addHook('onRequest', async request => {
    const host = request.host ?? ''
    if (host === '' || isLoopbackName(hostName(host))) return
    throw new HttpError(403, `The profiler has no PROFILER_SECRET, so it answers only loopback host names (localhost, 127.0.0.0/8, [::1]) and TRUSTED_HOSTS, not "${hostName(host)}": set PROFILER_SECRET, or add the name to TRUSTED_HOSTS.`, { name: 'ForbiddenError' })
  })
}
