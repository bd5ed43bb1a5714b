import type { ProcessPanel } from '../panel.js'
import { collectEnv } from './collect.js'
import type { EnvSchema } from './schema.js'
import { envView } from './view.js'

/** Environment: the service's version and commit, Node and Fastify, the deployment, the configuration. Per process: stored once, referenced by each profile. */
export const envPanel: ProcessPanel<typeof EnvSchema> = {
  name: 'env',
  label: 'Environment',
  description: 'the process that recorded the request: service version, commit (null: not built from a checkout), Node and Fastify versions, deployment, NODE_ENV, start time, effective configuration (secrets and URL passwords redacted)',
  perProcess: true,
  collect: collectEnv,
  view: envView
}
