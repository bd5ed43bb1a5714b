import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import type { AppOverrides } from '../../app.js'
import { buildTestApp } from './app.js'

/** An app of buildTestApp's whose log lines are kept; `logLines(pattern)`: those that match. */
export interface LoggedApp { app: FastifyInstance, logLines: (pattern: RegExp) => string[] }

/** buildTestApp's app logging at `info` (unless `env` says otherwise) into lines kept for the test to read. */
export async function buildLoggedApp (t: Test, env: Record<string, string> = {}, overrides: AppOverrides = {}): Promise<LoggedApp> {
  const lines: string[] = []
  const app = await buildTestApp(t, { LOG_LEVEL: 'info', ...env }, undefined, { ...overrides, logStream: { write: line => { lines.push(line) } } })
  return { app, logLines: pattern => lines.filter(line => pattern.test(line)) }
}
