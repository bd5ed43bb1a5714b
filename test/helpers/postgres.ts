// A throwaway PostgreSQL cluster for one test file (throwaway-cluster.ts), stopped
// and removed at teardown; tests that need one skip with a reason when PostgreSQL is absent.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { postgresBinDir, startThrowawayCluster, type ThrowawayCluster } from './throwaway-cluster.js'

export { postgresBinDir }
export type PostgresCluster = ThrowawayCluster

const run = promisify(execFile)

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

/**
 * A cleanly stopped, empty cluster to copy, made once per machine and PostgreSQL version (initdb
 * takes seconds, a copy milliseconds). Made in a folder of its own, then renamed into place: a
 * test file never sees half of one, and when two make it at once the first rename wins.
 */
async function templateDataDir (): Promise<string> {
  const template = join(tmpdir(), `profiled-api-pg-template-${basename(dirname(postgresBinDir() ?? 'none'))}`)
  if (existsSync(join(template, 'data', 'PG_VERSION'))) return join(template, 'data')
  const building = mkdtempSync(join(tmpdir(), 'pg-template-'))
  await (await startThrowawayCluster(building, { keep: true })).remove()
  try {
    renameSync(building, template)
  } catch {
    rmSync(building, { recursive: true, force: true }) // another test file's came first
  }
  return join(template, 'data')
}

/** Starts a cluster for this test file, a copy of the template (owners and modes kept: cp -a). */
export async function startPostgres (t: Test): Promise<PostgresCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'))
  await run('cp', ['-a', await templateDataDir(), join(dir, 'data')])
  const cluster = await startThrowawayCluster(dir)
  t.teardown(async () => { await cluster.remove() })
  return cluster
}

/** Rows of one query on its own connection (to look at what the service stored). */
export async function queryOn (url: string, sql: string, params: unknown[] = []): Promise<Array<Record<string, any>>> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, params)).rows
  } finally {
    await client.end()
  }
}
