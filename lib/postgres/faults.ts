/**
 * SQLSTATE classes and codes that mean the server cannot serve us now, not that our SQL or data
 * is wrong: 08 connection exceptions, 28 authorization refused (a password rotated, a role
 * changed), 3D000 the database missing, 42501 a privilege revoked, 53 insufficient resources
 * (disk full, too many connections), 57014 a statement cancelled (its timeout, behind a lock),
 * 57P01-57P05 shutdown and "cannot connect now" (starting up, recovering), 58 system errors
 * (I/O), 25006 a read-only (standby) server, 40001/40P01 serialization and deadlock (retrying
 * succeeds), 55P03 a lock not available, XX001/XX002 a corrupt data or index page.
 */
const FAULT_SQLSTATE = /^(08...|28...|3D000|42501|53...|57014|57P0[1-5]|58...|25006|40001|40P01|55P03|XX00[12])$/
/** Node's socket errors: refused, reset, unreachable, name not resolved, timed out. */
const FAULT_ERRNO = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/
/** What node-postgres itself says when a connection ends or cannot be had. */
const FAULT_MESSAGE = /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Client was closed/i

/**
 * Whether an error from `pg` (or one of its causes) is the database being unreachable,
 * restarting or refusing connections: a fault that may clear, as opposed to a bug or bad data
 * that would fail the same way again.
 */
export function isPostgresFault (error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as Error & { code?: unknown }).code
    if (typeof code === 'string' && (FAULT_SQLSTATE.test(code) || FAULT_ERRNO.test(code))) return true
    if (FAULT_MESSAGE.test(current.message)) return true
    // AggregateError: connecting to each address of a host name failed.
    if (current instanceof AggregateError && current.errors.some(inner => isPostgresFault(inner))) return true
  }
  return false
}

/** SQLSTATE classes about the values written: 22 data exceptions, 23 constraints, 54 limits (an index row too big). */
const DATA_SQLSTATE = /^(22|23|54)...$/

/** Whether an error may be about the data written (its SQLSTATE, or pg refusing a value), not the server. */
export function isPostgresDataError (error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true
  const code = (error as { code?: unknown } | null)?.code
  return error instanceof Error && typeof code === 'string' && DATA_SQLSTATE.test(code)
}
