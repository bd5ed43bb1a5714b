// Secrets never reach the profile store in clear: headers, body fields and query parameters
// whose names say they hold a secret are replaced before anything is queued.

export const REDACTED = '[redacted]'

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token', 'x-csrf-token'])
const SECRET_NAME = /pass(word|wd|phrase)?|secret|token|api[-_]?key|credential|authori[sz]ation|cookie|session[-_]?id|^pin$|cvv|card[-_]?number/i
const MAX_DEPTH = 32

export function isSecretName (name: string): boolean {
  return SECRET_NAME.test(name)
}

export function redactHeaders (headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value
  }
  return out
}

/** A deep copy in which every secret-named field holds REDACTED. */
export function redactFields (value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_DEPTH) return '[too deep]'
  if (Array.isArray(value)) return value.map(item => redactFields(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = isSecretName(key) ? REDACTED : redactFields(item, depth + 1)
  }
  return out
}

/** The URL with the values of secret-named query parameters replaced (the rest kept byte for byte). */
export function redactUrl (url: string): string {
  const mark = url.indexOf('?')
  if (mark === -1) return url
  const pairs = url.slice(mark + 1).split('&').map(pair => {
    const equals = pair.indexOf('=')
    const rawName = equals === -1 ? pair : pair.slice(0, equals)
    let name = rawName
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '))
    } catch {
      // keep the raw name: a malformed escape is not a secret name by itself
    }
    return equals !== -1 && isSecretName(name) ? `${rawName}=${encodeURIComponent(REDACTED)}` : pair
  })
  return `${url.slice(0, mark)}?${pairs.join('&')}`
}
