/** PostgreSQL text cannot hold NUL characters (SQLite can): they are stored, and searched for, as U+FFFD. */
export function noNul (text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text
}

/** Query parameters with every text as PostgreSQL can hold it (other values as they are). */
export function storableParams (params: unknown[]): unknown[] {
  return params.map(value => typeof value === 'string' ? noNul(value) : value)
}
