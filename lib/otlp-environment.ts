// The OTLP export's settings from the environment: PROFILER_OTLP_ENDPOINT turns it on, and the
// variables every OpenTelemetry SDK reads (OTEL_EXPORTER_OTLP_*, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES) are read the way the SDKs read them (the OpenTelemetry specification's
// "OTLP Exporter Configuration" and "Resource SDK" pages): a signal's own variable before the
// general one, the general endpoint with `v1/traces` appended, headers and resource attributes as
// comma-separated `key=value` pairs, percent-decoded.

/** What the writer thread needs to send profiles out as traces. Holds the headers (credentials): never log or show it. */
export interface OtlpSettings {
  /** Where the traces go: the full URL (…/v1/traces). */
  url: string
  protocol: 'http/protobuf' | 'http/json'
  /** Sent with every request (an API key, say). */
  headers: Record<string, string>
  /** One request's time limit, ms (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s). */
  timeoutMs: number
  /** The resource every span is sent with: service.name, service.version, deployment.environment.name, service.instance.id and OTEL_RESOURCE_ATTRIBUTES. */
  resource: Record<string, string>
}

/** Thrown for a variable that cannot be read; the message names it, never its value (headers hold keys). */
export class OtlpEnvironmentError extends Error {}

const DEFAULT_ENDPOINT = 'http://localhost:4318/'
const TRACES_PATH = 'v1/traces'
const DEFAULT_TIMEOUT_MS = 10_000
const PROTOCOLS = new Set(['http/protobuf', 'http/json'])

/** What the service knows of itself, for the resource's defaults. */
export interface ServiceFacts { name: string, version: string, environment: string, deployment: string }

/**
 * The export's settings, or null when PROFILER_OTLP_ENDPOINT is not set. Its value is a collector's
 * base URL (as OTEL_EXPORTER_OTLP_ENDPOINT: `v1/traces` is appended), or `otel`: the URL the SDKs
 * would use (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT plus
 * `v1/traces`, else http://localhost:4318/v1/traces).
 */
export function otlpSettingsOf (env: Record<string, string | undefined>, service: ServiceFacts): OtlpSettings | null {
  const endpoint = nonEmpty(env.PROFILER_OTLP_ENDPOINT)
  if (endpoint === undefined) return null
  const url = endpoint === 'otel' ? sdkTracesUrl(env) : withTracesPath(endpoint, 'PROFILER_OTLP_ENDPOINT')
  const protocol = nonEmpty(env.PROFILER_OTLP_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf'
  if (!PROTOCOLS.has(protocol)) {
    throw new OtlpEnvironmentError(`the OTLP protocol must be http/protobuf or http/json (the profiler sends over HTTP only), not ${JSON.stringify(protocol.slice(0, 40))}`)
  }
  const headers = {
    ...pairs(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...pairs(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')
  }
  return { url, protocol: protocol as OtlpSettings['protocol'], headers, timeoutMs: timeoutOf(env), resource: resourceOf(env, service) }
}

function nonEmpty (value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === '' ? undefined : trimmed
}

function sdkTracesUrl (env: Record<string, string | undefined>): string {
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  if (traces !== undefined) return httpUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  return withTracesPath(nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? DEFAULT_ENDPOINT, 'OTEL_EXPORTER_OTLP_ENDPOINT')
}

function httpUrl (value: string, variable: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new OtlpEnvironmentError(`${variable} must be an http(s) URL such as http://localhost:4318`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OtlpEnvironmentError(`${variable} must be an http(s) URL such as http://localhost:4318`)
  return url.href
}

/** The base URL with `v1/traces` appended, as the SDKs do with OTEL_EXPORTER_OTLP_ENDPOINT. */
function withTracesPath (value: string, variable: string): string {
  const base = httpUrl(value, variable)
  return base.endsWith('/') ? base + TRACES_PATH : `${base}/${TRACES_PATH}`
}

function timeoutOf (env: Record<string, string | undefined>): number {
  const value = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TIMEOUT)
  if (value === undefined) return DEFAULT_TIMEOUT_MS
  if (!/^[0-9]{1,7}$/.test(value) || Number(value) === 0) throw new OtlpEnvironmentError('OTEL_EXPORTER_OTLP_TIMEOUT must be a positive number of milliseconds')
  return Number(value)
}

/**
 * `key1=value1,key2=value2` (W3C Baggage's shape without its properties), each part trimmed and
 * percent-decoded. A part without `=` or with an empty key stops the start: a header meant to
 * authenticate that went missing would fail later, and more quietly.
 */
function pairs (value: string | undefined, variable: string): Record<string, string> {
  const result: Record<string, string> = {}
  if (value === undefined || value.trim() === '') return result
  for (const part of value.split(',')) {
    if (part.trim() === '') continue
    const at = part.indexOf('=')
    let key: string, decoded: string
    try {
      key = decodeURIComponent(part.slice(0, Math.max(at, 0)).trim())
      decoded = decodeURIComponent(part.slice(at + 1).trim())
    } catch {
      throw new OtlpEnvironmentError(`${variable} holds a part that is not percent-encoded correctly`)
    }
    if (at < 0 || key === '') throw new OtlpEnvironmentError(`${variable} must be a comma-separated list of key=value pairs`)
    result[key] = decoded
  }
  return result
}

/** OTEL_RESOURCE_ATTRIBUTES over what the service knows of itself; OTEL_SERVICE_NAME over both. */
function resourceOf (env: Record<string, string | undefined>, service: ServiceFacts): Record<string, string> {
  const resource: Record<string, string> = {
    'service.name': service.name,
    'service.version': service.version,
    'deployment.environment.name': service.environment,
    'service.instance.id': service.deployment,
    ...pairs(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES')
  }
  const name = nonEmpty(env.OTEL_SERVICE_NAME)
  if (name !== undefined) resource['service.name'] = name
  return resource
}

/** The settings as the environment panel may show them: the headers' names, never their values. */
export function shownOtlp (settings: OtlpSettings | null): Record<string, unknown> | null {
  if (settings === null) return null
  return { url: settings.url, protocol: settings.protocol, headers: Object.keys(settings.headers), timeoutMs: settings.timeoutMs, resource: settings.resource }
}
