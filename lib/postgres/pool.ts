import pg from 'pg'

// int8 (bigint) columns come back as numbers: our ids (start_ms * 1024 + n) stay below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, value => Number(value))

export interface PoolOptions {
  /** Connections at most. */
  max: number
  /**
   * Give up connecting after this long (a server that does not answer is a fault, not a hang):
   * by default the URL's `connect_timeout` (seconds, as libpq reads it), else 5 s.
   */
  connectTimeoutMs?: number
  /** A statement running longer than this is cancelled. */
  statementTimeoutMs?: number
  /** Shown in pg_stat_activity. */
  applicationName: string
  /**
   * Prepared statements use one generic plan per connection from their first execution (partitions
   * pruned when it runs) instead of five custom plans first: planning over ~120 hourly partitions
   * costs 10-15 ms, executing a search 0.3-0.9 ms (measured at 5,000 profiles over 5 days).
   */
  genericPlans?: boolean
  /** Every transaction of the session is read-only: the server refuses any write (the command line). */
  readOnly?: boolean
}

/** The URL's `connect_timeout` in milliseconds, when it holds a positive number of seconds (libpq's meaning). */
function urlConnectTimeoutMs (url: string): number | undefined {
  let seconds: number
  try {
    seconds = Number(new URL(url).searchParams.get('connect_timeout') ?? Number.NaN)
  } catch {
    return undefined
  }
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined
}

/**
 * A connection pool that survives the server going away: node-postgres emits 'error' on idle
 * connections the server terminated, which would end the process if nobody listened. The pool
 * replaces them on the next query; queries in flight fail with a fault (lib/postgres/faults.ts).
 */
export function createPool (url: string, options: PoolOptions): pg.Pool {
  // Session settings, sent when connecting.
  const settings = [
    // Without JIT: a generic plan takes LIMIT $n for a tenth of the rows, and the profiler's search
    // with a URL negation at 1 M profiles (123 partitions) was estimated past jit_optimize_above_cost:
    // 755 functions compiled at every execution, 25.9 s of a 26.0 s search under load (0.1 ms without).
    ...(options.genericPlans === true ? ['-c plan_cache_mode=force_generic_plan', '-c jit=off'] : []),
    ...(options.readOnly === true ? ['-c default_transaction_read_only=on'] : [])
  ]
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs ?? urlConnectTimeoutMs(url) ?? 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    application_name: options.applicationName,
    ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
    allowExitOnIdle: true
  })
  pool.on('error', () => { /* an idle connection ended; the next query opens another */ })
  // A checked-out connection has no 'error' listener of the pool's: one the server ends while it is
  // checked out (a fast shutdown, 57P01) would end the process. Its query fails with the fault instead.
  pool.on('connect', client => { client.on('error', () => {}) })
  return pool
}

/** Runs `work` in one transaction on one connection of the pool (`begin`: the statement that opens it, with its isolation level). */
export async function inTransaction<T> (pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect()
  // A connection the server ends between two statements emits 'error' (nobody else listens while
  // it is checked out): the next statement fails with the fault instead of the process ending.
  const ignore = (): void => {}
  client.on('error', ignore)
  let broken: Error | undefined
  try {
    await client.query(begin)
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => { broken = rollbackError })
    throw err
  } finally {
    // A connection that could not even roll back is discarded.
    client.off('error', ignore)
    client.release(broken)
  }
}
