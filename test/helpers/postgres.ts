// A throwaway PostgreSQL cluster for one test file: Debian's server binaries, a data folder in a
// temp dir, a free port on 127.0.0.1, stopped and removed at teardown. initdb refuses to run as
// root, so as root every server binary runs as the `postgres` system user the package creates.
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import type { Test } from 'tap'

const run = promisify(execFile)
const ROOT = '/usr/lib/postgresql'

/** The newest installed server's bin folder, or null when Debian's postgresql package is absent. */
export function postgresBinDir (): string | null {
  if (!existsSync(ROOT)) return null
  const versions = readdirSync(ROOT).filter(name => existsSync(join(ROOT, name, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? null : join(ROOT, versions[0], 'bin')
}

/**
 * Skips the whole test file (with the reason) when PostgreSQL is not installed; under CI=true a
 * missing PostgreSQL is an error instead (.ci/run installs it). Returns whether the tests can run.
 */
export function needsPostgres (t: Test): boolean {
  if (postgresBinDir() !== null) return true
  if (process.env.CI === 'true') throw new Error(`PostgreSQL is not installed (no ${ROOT}/*/bin/initdb): CI must run these tests`)
  t.plan(0, `PostgreSQL is not installed (no ${ROOT}/*/bin/initdb; apt-get install postgresql)`)
  return false
}

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise(resolve => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('no free port')
  return address.port
}

export interface PostgresCluster {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres (trust authentication: any password works). */
  url: string
  port: number
  /** Runs one statement on a short-lived connection. */
  query: <R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>
  /** A new empty database on this cluster; resolves with its URL. */
  createDatabase: (name: string) => Promise<string>
  /** Stops the server (fast shutdown: connections are terminated). */
  stop: () => Promise<void>
  /** Starts it again on the same port. */
  start: () => Promise<void>
}

/** Starts a cluster for this test file (once per file: initdb takes a few seconds). */
export async function startPostgres (t: Test): Promise<PostgresCluster> {
  const bin = postgresBinDir()
  if (bin === null) throw new Error('PostgreSQL is not installed: call needsPostgres(t) first')
  const asRoot = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'))
  const dataDir = join(dir, 'data')
  if (asRoot) chownSync(dir, ...ids('postgres'))
  const pgRun = async (tool: string, args: string[]): Promise<void> => {
    const command = asRoot ? 'runuser' : join(bin, tool)
    const fullArgs = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args
    await run(command, fullArgs, { cwd: dir, timeout: 60_000 })
  }
  const port = await freePort()
  await pgRun('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`
  const start = async (): Promise<void> => { await pgRun('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']) }
  const stop = async (): Promise<void> => { await pgRun('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']) }
  await start()
  let running = true
  t.teardown(async () => {
    if (running) await stop().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  })
  const url = `postgres://postgres:test-password@127.0.0.1:${port}/postgres`
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query<R>(sql, params)).rows
    } finally {
      await client.end()
    }
  }
  return {
    url,
    port,
    query,
    createDatabase: async name => {
      await query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
      return `postgres://postgres:test-password@127.0.0.1:${port}/${encodeURIComponent(name)}`
    },
    stop: async () => { await stop(); running = false },
    start: async () => { await start(); running = true }
  }
}

/** uid and gid of a system user (from /etc/passwd). */
function ids (user: string): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find(entry => entry.startsWith(`${user}:`))
  const [, , uid, gid] = line?.split(':') ?? []
  if (uid === undefined || gid === undefined) throw new Error(`no system user ${user}`)
  return [Number(uid), Number(gid)]
}
