// A throwaway PostgreSQL cluster for tests and benchmarks (never used by the service): Debian's
// server binaries, a data folder of our own, a free port on 127.0.0.1. initdb refuses to run as
// root, so as root every server binary runs as the `postgres` system user the package creates.
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)
const ROOT = '/usr/lib/postgresql'

/** The newest installed server's bin folder, or null when Debian's postgresql package is absent. */
export function postgresBinDir (): string | null {
  if (!existsSync(ROOT)) return null
  const versions = readdirSync(ROOT).filter(name => existsSync(join(ROOT, name, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? null : join(ROOT, versions[0], 'bin')
}

/** A port nothing listens on right now (taken, then freed). */
export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise(resolve => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('no free port')
  return address.port
}

/** uid and gid of a system user (from /etc/passwd). */
function ids (user: string): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find(entry => entry.startsWith(`${user}:`))
  const [, , uid, gid] = line?.split(':') ?? []
  if (uid === undefined || gid === undefined) throw new Error(`no system user ${user}`)
  return [Number(uid), Number(gid)]
}

export interface ThrowawayCluster {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres?connect_timeout=60 (trust authentication: any password works). */
  url: string
  port: number
  /** Runs one statement on a short-lived connection. */
  query: <R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>
  /** The URL of another database on this cluster. */
  urlOf: (database: string) => string
  /** A new empty database on this cluster (or a copy of database `template`); resolves with its URL. */
  createDatabase: (name: string, template?: string) => Promise<string>
  /** Stops the server (fast shutdown: connections are terminated). */
  stop: () => Promise<void>
  /** Starts it again on the same port. */
  start: () => Promise<void>
  /** Stops it if running and removes its folder (unless it was asked to be kept). */
  remove: () => Promise<void>
}

/**
 * Starts a cluster in `dir` (created; initdb runs when it holds no cluster yet, so a kept folder is
 * started again as it was). Fast and unsafe settings: fsync off, for throwaway data only.
 */
export async function startThrowawayCluster (dir: string, options: { keep?: boolean } = {}): Promise<ThrowawayCluster> {
  const bin = postgresBinDir()
  if (bin === null) throw new Error(`PostgreSQL is not installed (no ${ROOT}/*/bin/initdb; apt-get install postgresql)`)
  const asRoot = process.getuid?.() === 0
  mkdirSync(dir, { recursive: true })
  if (asRoot) chownSync(dir, ...ids('postgres'))
  const dataDir = join(dir, 'data')
  const pgRun = async (tool: string, args: string[]): Promise<void> => {
    const command = asRoot ? 'runuser' : join(bin, tool)
    const fullArgs = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args
    await run(command, fullArgs, { cwd: dir, timeout: 120_000 })
  }
  const port = await freePort()
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await pgRun('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'])
  }
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`
  const start = async (): Promise<void> => { await pgRun('pg_ctl', ['-D', dataDir, '-o', settings, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']) }
  const stop = async (): Promise<void> => { await pgRun('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']) }
  await start()
  let running = true
  // A connection may take seconds to open on a machine running the suite beside other jobs: what
  // the tests check is not the 5 s default (test/lib/postgres/postgres.test.ts checks that).
  const urlOf = (database: string): string => `postgres://postgres:test-password@127.0.0.1:${port}/${encodeURIComponent(database)}?connect_timeout=60`
  const url = urlOf('postgres')
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
    urlOf,
    createDatabase: async (name, template) => {
      const quoted = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`
      await query(`CREATE DATABASE ${quoted(name)}${template === undefined ? '' : ` TEMPLATE ${quoted(template)}`}`)
      return urlOf(name)
    },
    stop: async () => { await stop(); running = false },
    start: async () => { await start(); running = true },
    remove: async () => {
      if (running) await stop().catch(() => {})
      running = false
      if (options.keep !== true) rmSync(dir, { recursive: true, force: true })
    }
  }
}
