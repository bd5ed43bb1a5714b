// A throwaway PostgreSQL cluster for one test file (lib/postgres/throwaway-cluster.ts), stopped
// and removed at teardown; tests that need one skip with a reason when PostgreSQL is absent.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { postgresBinDir, startThrowawayCluster, type ThrowawayCluster } from '../../lib/postgres/throwaway-cluster.js'

export { postgresBinDir }
export type PostgresCluster = ThrowawayCluster

/**
 * Skips the whole test file (with the reason) when PostgreSQL is not installed; under CI=true a
 * missing PostgreSQL is an error instead (.ci/run installs it). Returns whether the tests can run.
 */
export function needsPostgres (t: Test): boolean {
  if (postgresBinDir() !== null) return true
  if (process.env.CI === 'true') throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): CI must run these tests')
  t.plan(0, 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)')
  return false
}

/** Starts a cluster for this test file (once per file: initdb takes a few seconds). */
export async function startPostgres (t: Test): Promise<PostgresCluster> {
  const cluster = await startThrowawayCluster(mkdtempSync(join(tmpdir(), 'pg-test-')))
  t.teardown(async () => { await cluster.remove() })
  return cluster
}

/** Rows of one query on its own connection (to look at what the service stored). */
export async function queryOn (url: string, sql: string): Promise<Array<Record<string, any>>> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}
