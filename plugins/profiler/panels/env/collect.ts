// Runs in the writer thread, once per process: what the environment panel shows. The configuration
// is redacted by name (PROFILER_SECRET's field, any secret-named one), every URL goes through the
// one rule that shows a database URL (lib/postgres/url.ts: its password as ***, and one that does not
// parse as "cannot be parsed", never in part), then every value goes through the redactor as any
// other field (the secret's value, tokens, card numbers wherever they appear).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { REDACTED, type Redactor } from '../../../../lib/redact.js'
import { withoutPassword } from '../../../../lib/postgres/url.js'
import { packageRoot } from '../../../../paths.js'
import type { ProcessContext } from '../panel.js'
import { checkoutCommit } from './checkout.js'
import type { EnvData } from './schema.js'

/**
 * A URL (`scheme://...`). Every one is shown as a database URL is, not only those whose user info
 * looks well formed: a password with an unencoded '/', '#' or '?' hides its '@' from any pattern
 * of user info, and was shown whole.
 */
const SCHEME_URL = /^[a-z][a-z0-9+.-]*:\/\//i

function versionOf (packageJson: string): string {
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string }).version ?? ''
}

/** A configuration value as JSON shows it: patterns as their source, URLs without their password. */
function plain (value: unknown): unknown {
  if (value instanceof RegExp) return value.toString()
  if (typeof value === 'string') return SCHEME_URL.test(value) ? withoutPassword(value) : value
  if (Array.isArray(value)) return value.map(plain)
  return value
}

function redactedConfiguration (configuration: Readonly<Record<string, unknown>>, redactor: Redactor): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name of Object.keys(configuration).sort()) {
    // A secret-named setting shows neither its value nor whether it is set.
    out[name] = redactor.isSecretName(name) ? REDACTED : plain(configuration[name])
  }
  return redactor.fields(out) as Record<string, unknown>
}

export function collectEnv ({ configuration, deployment, startedAtMs, redactor }: ProcessContext): EnvData {
  const fastifyPackage = createRequire(import.meta.url).resolve('fastify/package.json')
  const nodeEnv = configuration.nodeEnv
  return {
    version: versionOf(join(packageRoot, 'package.json')),
    commit: checkoutCommit(packageRoot),
    node: process.version,
    fastify: versionOf(fastifyPackage),
    deployment: redactor.text(deployment),
    nodeEnv: typeof nodeEnv === 'string' ? nodeEnv : null,
    startedAt: new Date(startedAtMs).toISOString(),
    configuration: redactedConfiguration(configuration, redactor)
  }
}
