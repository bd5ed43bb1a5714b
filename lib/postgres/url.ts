// The one way a database URL is shown (start-up line, outage lines, the command line's errors,
// the import script, the environment panel): never with its password, in whichever form
// node-postgres reads one. A URL that does not parse, or parses only by reading part of its user
// info as a port, a path, a query or a fragment, is not shown at all: nothing of it is repeated.
import { parseUrl } from '../parse-url.js'
import { decodeQueryText, isSecretName, URL_PASSWORD_MASK } from '../redact.js'

const MASK = URL_PASSWORD_MASK
/** node-postgres reads `postgres://user:pw@/db?host=/socket` by parsing it with this host put in. */
const DUMMY_HOST = '___DUMMY___'

/**
 * `?password=`, `?sslpassword=`, `?pass%77ord=`, `?Password=`... : node-postgres takes the query's
 * parameters decoded (pg-connection-string: URLSearchParams), so every pair whose decoded name the
 * secret-name rule of lib/redact.ts matches is masked.
 */
function maskPairs (part: string, lead: '?' | '#'): string {
  if (part === '') return part
  return lead + part.slice(1).split('&').map(pair => {
    const equals = pair.indexOf('=')
    return equals !== -1 && isSecretName(decodeQueryText(pair.slice(0, equals))) ? `${pair.slice(0, equals)}=${MASK}` : pair
  }).join('&')
}

/** What every place shows in place of a database URL that cannot be parsed. */
export const UNPARSABLE_DATABASE_URL = '(a database URL that cannot be parsed)'

/**
 * Whether the URL parsed only by cutting its user info short: an unencoded '/', '?' or '#' in a
 * password ends the authority there, and the '@' meant to end the user info lands in the path, the
 * query or the fragment (`postgres://u:1234/pw@host/db` parses with host "u", port 1234).
 */
function userInfoCutShort (parsed: URL): boolean {
  return parsed.pathname.includes('@') || parsed.search.includes('@') || parsed.hash.includes('@')
}

function masked (parsed: URL): string {
  if (parsed.password !== '') parsed.password = MASK
  parsed.search = maskPairs(parsed.search, '?')
  parsed.hash = maskPairs(parsed.hash, '#')
  return parsed.toString()
}

/**
 * A database URL as logs and messages may show it: the password of the user info, and every
 * secret-named query parameter, replaced by ***. A URL that does not parse is not repeated at all.
 */
export function withoutPassword (url: string): string {
  const parsed = parseUrl(url)
  if (parsed !== null) return userInfoCutShort(parsed) ? UNPARSABLE_DATABASE_URL : masked(parsed)
  // As node-postgres does for an empty host ("@/"): parsed with a placeholder, shown without it.
  const withHost = url.includes('@/') ? parseUrl(url.replace('@/', `@${DUMMY_HOST}/`)) : null
  if (withHost !== null && !userInfoCutShort(withHost)) return masked(withHost).replace(`@${DUMMY_HOST}/`, '@/')
  return UNPARSABLE_DATABASE_URL
}
